package db.migration;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;

import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.migration.JavaMigration;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.history.store.NameFold;

/**
 * Role names were matched through {@code lower(version->>'name')}, a generated column whose result depends on
 * the database's locale. From here the column, renamed {@code name_folded}, is written by the store with
 * {@link NameFold}, the one rule also applied to the filter. Existing rows are folded again by that same Java
 * rule (which is why this migration is Java, not SQL): each distinct name once, then one update of the rows
 * whose folded form changes (non-ASCII names, mostly), then the name dictionary is rebuilt. One transaction.
 */
// In db.migration (Flyway's location) and "implements JavaMigration" again: Quarkus runs the indexed implementors
// of that interface found under a location, and its index does not hold Flyway's BaseJavaMigration
public class V5__Fold_role_names extends BaseJavaMigration implements JavaMigration {

    private static final int BATCH = 1000;

    @Override
    public void migrate(Context context) throws Exception {
        Connection connection = context.getConnection();
        try (Statement sql = connection.createStatement()) {
            sql.execute("ALTER TABLE history.config_transaction ALTER COLUMN name_lower DROP EXPRESSION");
            sql.execute("ALTER TABLE history.config_transaction RENAME COLUMN name_lower TO name_folded");
            sql.execute("ALTER TABLE history.name_total RENAME COLUMN name_lower TO name_folded");
            sql.execute("CREATE TEMPORARY TABLE name_fold (name jsonb PRIMARY KEY, folded text) ON COMMIT DROP");
        }
        foldDistinctNames(connection);
        try (Statement sql = connection.createStatement()) {
            // the table refuses updates to keep history append-only; this one rewrites a derived column only
            sql.execute("ALTER TABLE history.config_transaction DISABLE TRIGGER config_transaction_append_only");
            sql.execute("""
                    UPDATE history.config_transaction t SET name_folded = f.folded
                    FROM name_fold f
                    WHERE t.version -> 'name' = f.name AND t.name_folded IS DISTINCT FROM f.folded""");
            sql.execute("ALTER TABLE history.config_transaction ENABLE TRIGGER config_transaction_append_only");
            sql.execute("DELETE FROM history.name_total");
            sql.execute("""
                    INSERT INTO history.name_total (sandbox_id, resource_type, name_folded, total)
                    SELECT sandbox_id, resource_type, name_folded, count(*) FROM history.config_transaction
                    WHERE name_folded IS NOT NULL GROUP BY 1, 2, 3""");
        }
    }

    private static void foldDistinctNames(Connection connection) throws Exception {
        ObjectMapper json = new ObjectMapper();
        try (Statement read = connection.createStatement();
                PreparedStatement write = connection.prepareStatement(
                        "INSERT INTO name_fold (name, folded) VALUES (?::jsonb, ?)")) {
            read.setFetchSize(BATCH);
            int pending = 0;
            try (ResultSet names = read.executeQuery("SELECT DISTINCT version -> 'name' FROM history.config_transaction "
                    + "WHERE version -> 'name' IS NOT NULL")) {
                while (names.next()) {
                    String name = names.getString(1);
                    write.setString(1, name);
                    write.setString(2, NameFold.ofName(json.readTree(name)));
                    write.addBatch();
                    if (++pending == BATCH) {
                        write.executeBatch();
                        pending = 0;
                    }
                }
            }
            if (pending > 0) {
                write.executeBatch();
            }
        }
    }
}
