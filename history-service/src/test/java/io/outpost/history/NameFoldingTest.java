package io.outpost.history;

import static io.outpost.history.HistoryFixture.ROLE;
import static io.outpost.history.HistoryFixture.page;
import static io.outpost.history.HistoryFixture.role;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.eclipse.microprofile.config.ConfigProvider;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.test.junit.QuarkusTest;

/**
 * The {@code name} filter matches non-ASCII names by one rule applied in Java (NameFold), so the answer does not
 * depend on the database's locale; and migration V5 re-folds names stored under the old {@code lower()} rule.
 */
@QuarkusTest
class NameFoldingTest {

    private static final UUID SANDBOX = UUID.randomUUID();
    private static final List<String> NAMES = List.of("Straße", "ΣΟΦΊΑΣ", "İstanbul", "KIRMIZI", "Éclair", "Ａｄｍｉｎ");

    private static synchronized void publishOnce() {
        if (page(SANDBOX, ROLE, Map.of()).getLong("page_meta.total") == NAMES.size()) {
            return;
        }
        List<ObjectNode> events = new ArrayList<>();
        NAMES.forEach(name -> events.add(role(SANDBOX, UUID.randomUUID(), name)));
        HistoryFixture.publishAndAwait(events, NAMES.size());
    }

    @ParameterizedTest
    @CsvSource({ "STRASSE, Straße", "straße, Straße", "σοφίας, ΣΟΦΊΑΣ", "ΊΑΣ, ΣΟΦΊΑΣ", "istanbul, İstanbul",
            "ISTANBUL, İstanbul", "kırmızı, KIRMIZI", "mizi, KIRMIZI", "éCLAIR, Éclair", "admin, Ａｄｍｉｎ" })
    void matchesANonAsciiNameWhateverItsCaseOrForm(String filter, String expected) {
        publishOnce();
        var listed = page(SANDBOX, ROLE, Map.of("name", filter));
        assertThat(listed.getList("transactions.version.name", String.class)).containsExactly(expected);
        assertThat(listed.getLong("page_meta.total")).isEqualTo(1);
    }

    @Test
    void migrationFiveRefoldsNamesStoredByTheLocaleDependentRule() throws Exception {
        String url = ConfigProvider.getConfig().getValue("quarkus.datasource.jdbc.url", String.class);
        String user = ConfigProvider.getConfig().getValue("quarkus.datasource.username", String.class);
        String password = ConfigProvider.getConfig().getOptionalValue("quarkus.datasource.password", String.class)
                .orElse("");
        String database = "v5_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection admin = DriverManager.getConnection(url, user, password); Statement sql = admin.createStatement()) {
            // C: PostgreSQL's lower() leaves every non-ASCII letter as it is
            sql.execute("CREATE DATABASE " + database + " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'");
        }
        String scratch = url.substring(0, url.lastIndexOf('/') + 1) + database;
        try {
            Flyway flyway = Flyway.configure().dataSource(scratch, user, password).schemas("history")
                    .defaultSchema("history").createSchemas(true)
                    .locations("classpath:db/migration").target("4")
                    .load();
            flyway.migrate();
            UUID sandbox = UUID.randomUUID();
            try (Connection db = DriverManager.getConnection(scratch, user, password); Statement sql = db.createStatement()) {
                int i = 0;
                for (String name : List.of("Straße", "STRASSE", "ÉCLAIR", "admin", "Admin")) {
                    sql.execute("INSERT INTO history.config_transaction (sandbox_id, resource_type, resource_id, "
                            + "transaction_id, account_id, issued_at, operation, version_id, version) VALUES ('" + sandbox
                            + "', 'role', gen_random_uuid(), 'tx-" + i++ + "', 'a', now(), 'create', 'v', "
                            + "jsonb_build_object('name', '" + name + "'))");
                }
                sql.execute("INSERT INTO history.name_total SELECT sandbox_id, resource_type, name_lower, count(*) "
                        + "FROM history.config_transaction GROUP BY 1, 2, 3");
                assertThat(names(sql, "SELECT name_lower AS n, total FROM history.name_total ORDER BY 1"))
                        .containsExactly(Map.entry("admin", 2L), Map.entry("strasse", 1L), Map.entry("straße", 1L),
                                Map.entry("Éclair", 1L));
            }
            Flyway.configure().configuration(flyway.getConfiguration()).target("latest").load().migrate();
            try (Connection db = DriverManager.getConnection(scratch, user, password); Statement sql = db.createStatement()) {
                assertThat(names(sql, "SELECT name_folded AS n, total FROM history.name_total ORDER BY 1"))
                        .containsExactly(Map.entry("admin", 2L), Map.entry("strasse", 2L), Map.entry("éclair", 1L));
                assertThat(names(sql, "SELECT name_folded AS n, count(*) AS total FROM history.config_transaction "
                        + "GROUP BY 1 ORDER BY 1")).containsExactly(Map.entry("admin", 2L), Map.entry("strasse", 2L),
                                Map.entry("éclair", 1L));
            }
        } finally {
            try (Connection admin = DriverManager.getConnection(url, user, password); Statement sql = admin.createStatement()) {
                sql.execute("DROP DATABASE " + database + " WITH (FORCE)");
            }
        }
    }

    private static Map<String, Long> names(Statement sql, String query) throws Exception {
        Map<String, Long> names = new LinkedHashMap<>();
        try (ResultSet rows = sql.executeQuery(query)) {
            while (rows.next()) {
                names.put(rows.getString("n"), rows.getLong("total"));
            }
        }
        return names;
    }
}
