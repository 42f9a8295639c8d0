package io.outpost.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;

/**
 * deploy/'s database roles on the real PostgreSQL, as the prod overlay sets them up: roles.sql as CloudNativePG
 * runs it at bootstrap (then LOGIN and passwords, as its managed roles do), history-service's packaged migrations
 * run as its migrator role the way the migrate init container runs them, the service's validate-only start as
 * its runtime role, and what that role may do: append transactions, never change or remove them, no DDL.
 */
class DatabaseRolesTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final String PASSWORD = "roles-test-" + UUID.randomUUID();

    @Test
    void historyMigratesAsTheSchemaOwnerAndRunsAsARoleThatCanOnlyAppend() throws Exception {
        PostgresConnection server = BackingServices.shared().postgres();
        String database = "roles_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        execute(server, "CREATE DATABASE " + database);
        PostgresConnection db = new PostgresConnection(server.host(), server.port(), database, server.username(),
                server.password());
        try {
            execute(db, Files.readString(ROOT.resolve("deploy/overlays/prod/database/roles.sql"))
                    .replace("DATABASE outpost", "DATABASE " + database));
            execute(db, "ALTER ROLE history_migrator LOGIN PASSWORD '" + PASSWORD + "'; "
                    + "ALTER ROLE history_app LOGIN PASSWORD '" + PASSWORD + "'");

            assertThat(initAndExit(db, "history_migrator", Map.of("QUARKUS_FLYWAY_MIGRATE_AT_START", "true")))
                    .as("migrations as the owner").isZero();
            assertThat(initAndExit(db, "history_app", Map.of("QUARKUS_FLYWAY_MIGRATE_AT_START", "false",
                    "QUARKUS_FLYWAY_VALIDATE_AT_START", "true"))).as("validation as the runtime role").isZero();

            try (Connection app = DriverManager.getConnection(db.jdbcUrl(), "history_app", PASSWORD);
                    Statement statement = app.createStatement()) {
                statement.execute("INSERT INTO history.config_transaction (sandbox_id, resource_type, resource_id, "
                        + "transaction_id, account_id, issued_at, operation, version_id, version) VALUES ("
                        + "gen_random_uuid(), 'role', gen_random_uuid(), 'tx-roles', 'acct', now(), 'create', 'v1', "
                        + "'{\"name\":\"r\"}')");
                statement.execute("INSERT INTO history.listing_total (sandbox_id, resource_type, total) "
                        + "VALUES (gen_random_uuid(), 'role', 1) ON CONFLICT (sandbox_id, resource_type) "
                        + "DO UPDATE SET total = history.listing_total.total + 1");
                for (String refused : List.of("UPDATE history.config_transaction SET account_id = 'x'",
                        "DELETE FROM history.config_transaction", "TRUNCATE history.config_transaction",
                        "CREATE TABLE history.intruder (id int)", "DROP TABLE history.listing_total")) {
                    assertThatThrownBy(() -> statement.execute(refused)).as(refused).isInstanceOf(SQLException.class)
                            .satisfies(e -> assertThat(((SQLException) e).getSQLState()).as(refused)
                                    .isIn("42501", "42P01"));
                }
            }
        } finally {
            execute(server, "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            execute(server, "DROP ROLE IF EXISTS auth_migrator, auth_app, notification_migrator, notification_app, "
                    + "history_migrator, history_app");
        }
    }

    /** history-service's packaged app with QUARKUS_INIT_AND_EXIT, as the init container runs it: its exit code. */
    private static int initAndExit(PostgresConnection db, String user, Map<String, String> settings) throws Exception {
        Path app = ROOT.resolve("history-service/target/quarkus-app/quarkus-run.jar");
        Path log = Files.createTempFile("history-init-", ".log");
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-jar", app.toString()).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        env.put("QUARKUS_INIT_AND_EXIT", "true");
        env.put("QUARKUS_HTTP_PORT", "0");
        env.put("QUARKUS_DATASOURCE_REACTIVE_URL", db.reactiveUrl());
        env.put("QUARKUS_DATASOURCE_USERNAME", user);
        env.put("QUARKUS_DATASOURCE_PASSWORD", PASSWORD);
        env.put("KAFKA_BOOTSTRAP_SERVERS", BackingServices.shared().kafkaBootstrapServers());
        env.putAll(settings);
        Process process = builder.start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("history-service did not exit after initialisation: " + Files.readString(log));
        }
        if (process.exitValue() != 0) {
            System.out.println("[roles] " + user + ": " + Files.readString(log));
        }
        return process.exitValue();
    }

    private static void execute(PostgresConnection db, String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(db.jdbcUrl(), db.username(), db.password());
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
