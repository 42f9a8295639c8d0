package io.outpost.load.history;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import io.outpost.testsupport.PostgresConnection;

/**
 * Fills history-service's own schema (after its migrations ran) with one big sandbox, straight in SQL:
 * {@code rows} transactions, 9 in 10 of them roles spread over 10,000 role ids (≈90 versions each), the rest
 * profile lists. The totals and the name dictionary the service keeps are brought up to date in the same
 * transaction.
 */
final class BulkLoad {

    static final int ROLES = 10_000;

    private BulkLoad() {
    }

    /** The uuid of role {@code k} (0..9999), as loaded. */
    static UUID roleId(Connection db, int k) throws SQLException {
        try (PreparedStatement q = db.prepareStatement("SELECT md5('role' || ?)::uuid")) {
            q.setInt(1, k);
            try (ResultSet r = q.executeQuery()) {
                r.next();
                return (UUID) r.getObject(1);
            }
        }
    }

    static Connection connect(PostgresConnection pg) throws SQLException {
        return DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
    }

    static void load(Connection db, UUID sandbox, int rows) throws SQLException {
        db.setAutoCommit(false);
        try (Statement s = db.createStatement()) {
            s.execute("SET LOCAL synchronous_commit = off");
            s.execute("""
                    INSERT INTO history.config_transaction (sandbox_id, resource_type, resource_id, legacy_id,
                            transaction_id, account_id, issued_at, operation, version_id, version_name, version,
                            name_folded)
                    SELECT '%s'::uuid,
                           CASE WHEN i %% 10 = 0 THEN 'match-making-profile-list' ELSE 'role' END,
                           md5('role' || (i %% %d))::uuid,
                           i %% %d,
                           'bulk-' || i,
                           'account-' || (i %% 50),
                           timestamptz '2026-01-01 00:00:00Z' + i * interval '1 second',
                           (ARRAY['create', 'update', 'delete'])[i %% 3 + 1],
                           'v-' || i,
                           'Version ' || i,
                           jsonb_build_object('id', md5('role' || (i %% %d))::uuid,
                                   'name', 'Role ' || (i %% %d) || ' ' || (ARRAY['admin', 'moderator', 'viewer', 'ops'])[i %% 4 + 1],
                                   'permissions', jsonb_build_array('sandbox:config:view', 'game:item:' || (i %% 97)),
                                   'priority', i %% 100),
                           -- the store folds role names in Java (NameFold); for these ASCII names that is lower().
                           -- Profile lists have no name filter: the store leaves their name_folded null
                           CASE WHEN i %% 10 = 0 THEN NULL ELSE
                           lower('Role ' || (i %% %d) || ' ' || (ARRAY['admin', 'moderator', 'viewer', 'ops'])[i %% 4 + 1]) END
                    FROM generate_series(1, %d) AS i
                    """.formatted(sandbox, ROLES, ROLES, ROLES, ROLES, ROLES, rows));
            s.execute("""
                    INSERT INTO history.listing_total AS t (sandbox_id, resource_type, total)
                    SELECT sandbox_id, resource_type, count(*) FROM history.config_transaction
                    WHERE sandbox_id = '%s' GROUP BY 1, 2
                    ON CONFLICT (sandbox_id, resource_type) DO UPDATE SET total = excluded.total
                    """.formatted(sandbox));
            s.execute("""
                    INSERT INTO history.name_total AS n (sandbox_id, resource_type, name_folded, total)
                    SELECT sandbox_id, resource_type, name_folded, count(*) FROM history.config_transaction
                    WHERE sandbox_id = '%s' AND name_folded IS NOT NULL GROUP BY 1, 2, 3
                    ON CONFLICT (sandbox_id, resource_type, md5(name_folded)) DO UPDATE SET total = excluded.total
                    """.formatted(sandbox));
        }
        db.commit();
        db.setAutoCommit(true);
        try (Statement s = db.createStatement()) {
            s.execute("VACUUM ANALYZE history.config_transaction");
        }
    }
}
