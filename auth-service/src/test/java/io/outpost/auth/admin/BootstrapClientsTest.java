package io.outpost.auth.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.outpost.auth.TestClients;
import io.outpost.auth.service.BootstrapClients;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Clients from configuration (local runs): registered at start, idempotent on restart, brought back in line when
 * the database drifted — and their secrets are stored only as slow-KDF hashes.
 */
@QuarkusTest
class BootstrapClientsTest {

    @Inject
    BootstrapClients bootstrap;

    @Test
    void storesSecretsOnlyAsPbkdf2Hashes() throws SQLException {
        String hash = query("select secret_hash from auth.client where client_id = '" + TestClients.GAME + "'");
        assertThat(hash).startsWith("$pbkdf2-sha512$i=210000$").doesNotContain(TestClients.GAME_SECRET);
        assertThat(query("select count(*) from auth.client where secret_hash not like '$pbkdf2-sha512$%'")).isEqualTo("0");
    }

    @Test
    void aSecondStartChangesNothing() throws Exception {
        String before = query("select string_agg(client_id || updated_at::text || secret_hash, ',' order by client_id) "
                + "from auth.client where client_id like 'test-%'");
        bootstrap.onStart(null);
        String after = query("select string_agg(client_id || updated_at::text || secret_hash, ',' order by client_id) "
                + "from auth.client where client_id like 'test-%'");
        assertThat(after).isEqualTo(before);
    }

    @Test
    void aStartBringsDriftedClientsBackInLine() throws Exception {
        update("update auth.client set permissions = '{}', enabled = false where client_id = 'test-backend'");
        bootstrap.onStart(null);
        assertThat(query("select array_to_string(permissions, ',') || ' ' || enabled from auth.client "
                + "where client_id = 'test-backend'")).isEqualTo("sandbox:config:edit true");
        TestClients.token(TestClients.BACKEND, TestClients.BACKEND_SECRET);
    }

    private static String query(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        }
    }

    private static void update(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.executeUpdate(sql);
        }
    }

    private static Connection connect() throws SQLException {
        PostgresConnection pg = BackingServices.shared().postgres();
        return DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
    }
}
