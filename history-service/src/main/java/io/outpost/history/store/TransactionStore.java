package io.outpost.history.store;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.model.event.ConfigTransactionEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Appends to the store of config transactions ({@code history.config_transaction}), with the totals kept
 * beside it. A hot path, so plain SQL through the reactive client rather than entities.
 */
@ApplicationScoped
public class TransactionStore {

    /** Seed of the advisory-lock key of a sandbox's writers (keeps it apart from other users of the lock space). */
    private static final int LOCK_SEED = 0x4849_5354; // "HIST"

    private static final String LOCK_SANDBOXES = """
            SELECT pg_advisory_xact_lock(hashtextextended(s, %d))
            FROM (SELECT DISTINCT unnest($1::text[]) AS s ORDER BY 1) AS sandboxes
            """.formatted(LOCK_SEED);

    private static final String APPEND = """
            WITH input AS (
                SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                                     $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])
                    WITH ORDINALITY AS i(transaction_id, sandbox_id, resource_type, resource_id, legacy_id, account_id,
                         issued_at, operation, version_id, version_name, version, name_folded, ord)
            ), inserted AS (
                INSERT INTO history.config_transaction (sandbox_id, resource_type, resource_id, legacy_id,
                        transaction_id, account_id, issued_at, operation, version_id, version_name, version,
                        name_folded)
                SELECT sandbox_id::uuid, resource_type, resource_id::uuid, legacy_id::bigint, transaction_id,
                       account_id, issued_at::timestamptz, operation, version_id, version_name, version::jsonb,
                       name_folded
                FROM input ORDER BY ord
                -- a transaction stored before, or earlier in this batch, is skipped (its id is left unused)
                ON CONFLICT (transaction_id) DO NOTHING
                RETURNING sandbox_id, resource_type, name_folded
            ), names AS (
                INSERT INTO history.name_total AS n (sandbox_id, resource_type, name_folded, total)
                SELECT sandbox_id, resource_type, name_folded, count(*) FROM inserted WHERE name_folded IS NOT NULL
                GROUP BY sandbox_id, resource_type, name_folded
                ON CONFLICT (sandbox_id, resource_type, name_folded) DO UPDATE SET total = n.total + excluded.total
            ), tallies AS (
                INSERT INTO history.listing_total AS t (sandbox_id, resource_type, total)
                SELECT sandbox_id, resource_type, count(*) FROM inserted GROUP BY sandbox_id, resource_type
                ON CONFLICT (sandbox_id, resource_type) DO UPDATE SET total = t.total + excluded.total
            )
            SELECT count(*) AS appended FROM inserted
            """;

    private final Pool pool;
    private final ObjectMapper mapper;

    public TransactionStore(Pool pool, ObjectMapper mapper) {
        this.pool = pool;
        this.mapper = mapper;
    }

    /** Appends the events not stored yet, in their order, in one database transaction; returns how many. */
    public Uni<Integer> append(List<ConfigTransactionEvent> events) {
        if (events.isEmpty()) {
            return Uni.createFrom().item(0);
        }
        return pool.withTransaction(connection -> append(connection, events));
    }

    /**
     * Appends within the caller's transaction. The sandboxes' writer locks are taken first and held until that
     * transaction ends, so ids are drawn in commit order within each sandbox.
     */
    public Uni<Integer> append(SqlConnection connection, List<ConfigTransactionEvent> events) {
        int n = events.size();
        String[][] columns = new String[12][n];
        Set<String> sandboxes = new LinkedHashSet<>();
        for (int i = 0; i < n; i++) {
            ConfigTransactionEvent e = events.get(i);
            String sandbox = UUID.fromString(e.sandboxId()).toString();
            sandboxes.add(sandbox);
            columns[0][i] = e.transactionId();
            columns[1][i] = sandbox;
            columns[2][i] = e.resourceType();
            columns[3][i] = e.resourceId();
            columns[4][i] = e.legacyId() == null ? null : e.legacyId().toString();
            columns[5][i] = e.accountId();
            columns[6][i] = e.issuedAt().toString();
            columns[7][i] = e.operation();
            columns[8][i] = e.versionId();
            columns[9][i] = e.versionName();
            columns[10][i] = json(e);
            columns[11][i] = NameFold.ofVersion(e.version());
        }
        Tuple lock = Tuple.tuple().addArrayOfString(sandboxes.toArray(String[]::new));
        Tuple rows = Tuple.tuple();
        for (String[] column : columns) {
            rows.addArrayOfString(column);
        }
        return connection.preparedQuery(LOCK_SANDBOXES).execute(lock)
                .chain(() -> connection.preparedQuery(APPEND).execute(rows))
                .map(result -> result.iterator().next().getLong("appended").intValue());
    }

    private String json(ConfigTransactionEvent event) {
        try {
            return mapper.writeValueAsString(event.version());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("unwritable version of " + event.transactionId(), e);
        }
    }
}
