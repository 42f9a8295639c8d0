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

    private static final String COLUMNS = "id, account_id, transaction_id, issued_at, operation, version_id, "
            + "version_name, version::text AS version";

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

    /** A page with the number of all matching transactions. */
    public record Listing(List<StoredTransaction> rows, long total) {
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
                return Uni.createFrom().item(new Listing(List.of(), 0));
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

    private Uni<List<StoredTransaction>> page(ListingQuery query, NameMatch names) {
        List<Object> params = new ArrayList<>();
        StringBuilder sql = new StringBuilder("SELECT ").append(COLUMNS).append(" FROM history.config_transaction WHERE ");
        where(sql, params, query, names);
        if (query.after() != null) {
            params.add(query.after());
            sql.append(query.ascending() ? " AND id > $" : " AND id < $").append(params.size());
        }
        params.add(query.limit());
        sql.append(" ORDER BY id ").append(query.ascending() ? "ASC" : "DESC").append(" LIMIT $").append(params.size());
        return statement(sql.toString(), Tuple.from(params)).map(result -> {
            List<StoredTransaction> page = new ArrayList<>(result.size());
            for (Row row : result) {
                page.add(transaction(row));
            }
            return page;
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
        // the snapshot is streamed into the response as stored: no tree per version
        HistoryTransaction transaction = new HistoryTransaction(row.getString("account_id"),
                row.getString("transaction_id"), row.getOffsetDateTime("issued_at").toInstant(),
                row.getString("operation"), row.getString("version_id"), row.getString("version_name"),
                new POJONode(new StoredJson(row.getString("version"))));
        return new StoredTransaction(row.getLong("id"), transaction);
    }
}
