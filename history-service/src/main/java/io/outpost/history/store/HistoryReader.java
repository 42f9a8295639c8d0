package io.outpost.history.store;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.node.POJONode;

import io.outpost.model.api.HistoryTransaction;
import io.outpost.support.store.Transactions;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Reads listings: one keyset range of {@code (sandbox_id, resource_type, …, id)} per page, and a total that
 * never counts a sandbox row by row unless an id filter has already narrowed it.
 */
@ApplicationScoped
public class HistoryReader {

    /** Names listed one by one at most; more, or more transactions than below, and the page walks by id instead. */
    static final int NAMES_BY_VALUE = 1000;
    static final long MATCHES_BY_VALUE = 20_000;

    private static final String FIELDS = "id, account_id, transaction_id, issued_at, operation, version_id, version_name";

    /**
     * What a transaction takes in a page besides its text fields and its snapshot, counted from above: the field
     * names and punctuation, {@code issued_at} at its longest (27 characters), {@code operation} and a comma.
     */
    static final int ENTRY_BYTES = 144;

    /**
     * The bytes a row takes in a response, counted from above: its snapshot as PostgreSQL writes it (V9's
     * {@code version_bytes}; the response writes it without the spaces) and its text fields JSON-escaped.
     */
    private static final String ROW_BYTES = "coalesce(version_bytes, 0) + octet_length(to_json(account_id)::text) "
            + "+ octet_length(to_json(transaction_id)::text) + octet_length(to_json(version_id)::text) "
            + "+ coalesce(octet_length(to_json(version_name)::text), 0) + " + ENTRY_BYTES;

    /** One row: how many names match, how many transactions carry one, and up to $4 of the names. */
    static final String NAMES = """
            SELECT count(*) AS names, coalesce(sum(total), 0) AS matches, (array_agg(name_folded))[1:$4] AS some
            FROM history.name_total
            WHERE sandbox_id = $1 AND resource_type = $2 AND name_folded LIKE '%' || $3 || '%'
            """;

    /** The names of a sandbox and type matching the name filter, and how many transactions carry one. */
    record NameMatch(List<String> names, long nameCount, long matches) {
        boolean byValue() {
            return nameCount <= NAMES_BY_VALUE && matches <= MATCHES_BY_VALUE;
        }
    }

    /** A page with the number of all matching transactions, and whether another transaction follows the page. */
    public record Listing(List<StoredTransaction> rows, long total, boolean more) {
        Listing(Page page, long total) {
            this(page.rows(), total, page.more());
        }
    }

    private record Page(List<StoredTransaction> rows, boolean more) {
    }

    private final Pool pool;

    public HistoryReader(Pool pool) {
        this.pool = pool;
    }

    public Uni<Listing> list(ListingQuery query) {
        if (query.nameContains() == null) {
            return Uni.combine().all().unis(page(query, null), total(query, null)).with(Listing::new);
        }
        return names(query).chain(match -> {
            if (match.matches() == 0) {
                return Uni.createFrom().item(new Listing(List.of(), 0, false));
            }
            Uni<Long> total = query.resourceIds().isEmpty() && query.legacyIds().isEmpty()
                    ? Uni.createFrom().item(match.matches())
                    : total(query, match);
            return Uni.combine().all().unis(page(query, match), total).with(Listing::new);
        });
    }

    private Uni<NameMatch> names(ListingQuery query) {
        // the names are needed only when they are few (byValue): more than NAMES_BY_VALUE are counted, not sent
        Tuple params = Tuple.of(query.sandboxId(), query.resourceType(), likeLiteral(query.nameContains()),
                NAMES_BY_VALUE);
        return statement(NAMES, params).map(result -> {
            Row row = result.iterator().next();
            String[] some = row.getArrayOfStrings("some");
            return new NameMatch(some == null ? List.of() : List.of(some), row.getLong("names"), row.getLong("matches"));
        });
    }

    /**
     * The page: one keyset range of at most {@code limit + 1} rows (the one more tells whether another page
     * follows), cut where the running sum of their bytes would pass {@code maxBytes} — after the first row at the
     * earliest. The sums are taken over the rows' measured sizes ({@code version_bytes}, V9): a snapshot is
     * written out ({@code version::text}) only for a row the page shows (and for the one past {@code limit}). The
     * first row after those shown comes back too, telling that more follow; cut by bytes, without its snapshot.
     */
    private Uni<Page> page(ListingQuery query, NameMatch names) {
        List<Object> params = new ArrayList<>();
        StringBuilder range = new StringBuilder("SELECT ").append(FIELDS)
                .append(", CASE WHEN version_bytes IS NOT NULL THEN version END AS version, ").append(ROW_BYTES)
                .append(" AS bytes FROM history.config_transaction WHERE ");
        where(range, params, query, names);
        String order = query.ascending() ? "ASC" : "DESC";
        if (query.after() != null) {
            params.add(query.after());
            range.append(query.ascending() ? " AND id > $" : " AND id < $").append(params.size());
        }
        params.add(query.limit() + 1);
        range.append(" ORDER BY id ").append(order).append(" LIMIT $").append(params.size());
        params.add(query.maxBytes());
        int maxBytes = params.size();
        String sql = "SELECT " + FIELDS + ", shown, CASE WHEN shown THEN version::text END AS version FROM ("
                + "SELECT *, n = 1 OR running <= $" + maxBytes + " AS shown FROM ("
                + "SELECT page.*, row_number() OVER w AS n, sum(bytes) OVER w AS running FROM (" + range + ") AS page "
                + "WINDOW w AS (ORDER BY id " + order + " ROWS UNBOUNDED PRECEDING)) AS sized "
                // the shown rows and the first one after them
                + "WHERE n <= 2 OR running - bytes <= $" + maxBytes + ") AS cut ORDER BY id " + order;
        return statement(sql, Tuple.from(params)).map(result -> {
            List<StoredTransaction> rows = new ArrayList<>(result.size());
            boolean more = false;
            for (Row row : result) {
                if (!row.getBoolean("shown") || rows.size() == query.limit()) {
                    more = true;
                    break;
                }
                rows.add(transaction(row));
            }
            return new Page(rows, more);
        });
    }

    private Uni<Long> total(ListingQuery query, NameMatch names) {
        List<Object> params = new ArrayList<>();
        StringBuilder sql;
        if (query.filtered()) {
            // an id filter narrows to a few roles' versions first; a name alone was answered by the dictionary
            sql = new StringBuilder("SELECT count(*) AS total FROM history.config_transaction WHERE ");
            where(sql, params, query, names);
        } else {
            sql = new StringBuilder("SELECT total FROM history.listing_total WHERE sandbox_id = $1 AND resource_type = $2");
            params.add(query.sandboxId());
            params.add(query.resourceType());
        }
        return statement(sql.toString(), Tuple.from(params))
                .map(result -> result.size() == 0 ? 0L : result.iterator().next().getLong("total"));
    }

    /**
     * One statement on a pooled connection, cancelled in PostgreSQL when the listing is given up on (its query
     * deadline, {@code StoreDeadline}): the page and the total run at once, each on its own connection.
     */
    private Uni<RowSet<Row>> statement(String sql, Tuple params) {
        return Transactions.withConnection(pool, connection -> connection.preparedQuery(sql).execute(params));
    }

    private static void where(StringBuilder sql, List<Object> params, ListingQuery query, NameMatch names) {
        params.add(query.sandboxId());
        params.add(query.resourceType());
        sql.append("sandbox_id = $1 AND resource_type = $2");
        if (!query.resourceIds().isEmpty()) {
            params.add(query.resourceIds().toArray(UUID[]::new));
            sql.append(" AND resource_id = ANY($").append(params.size()).append(')');
        }
        if (!query.legacyIds().isEmpty()) {
            params.add(query.legacyIds().toArray(Long[]::new));
            sql.append(" AND legacy_id = ANY($").append(params.size()).append(')');
        }
        if (names != null && names.byValue()) {
            // few, sparse matches: one index range per name, found by its digest (V6); the names themselves
            // then keep out any other name sharing a digest
            params.add(names.names().toArray(String[]::new));
            int at = params.size();
            sql.append(" AND md5(name_folded) = ANY(ARRAY(SELECT md5(n) FROM unnest($").append(at)
                    .append("::text[]) AS n)) AND name_folded = ANY($").append(at).append(')');
        } else if (query.nameContains() != null) {
            // many or dense matches: walking the sandbox in id order meets the page's rows soon
            params.add(likeLiteral(query.nameContains()));
            sql.append(" AND name_folded LIKE '%' || $").append(params.size()).append(" || '%'");
        }
    }

    /** The text matched literally by LIKE: its wildcards and the escape character are escaped. */
    static String likeLiteral(String text) {
        return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    }

    private static StoredTransaction transaction(Row row) {
        // the snapshot is streamed into the response as stored: no tree per version; one stored before the
        // ingest's bounds that breaks them (V9) is not read, and the transaction is listed without it
        String version = row.getString("version");
        HistoryTransaction transaction = new HistoryTransaction(row.getString("account_id"),
                row.getString("transaction_id"), row.getOffsetDateTime("issued_at").toInstant(),
                row.getString("operation"), row.getString("version_id"), row.getString("version_name"),
                version == null ? null : new POJONode(new StoredJson(version)));
        return new StoredTransaction(row.getLong("id"), transaction);
    }
}
