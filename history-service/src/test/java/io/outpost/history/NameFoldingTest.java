package io.outpost.history;

import static io.outpost.history.HistoryFixture.PROFILE_LIST;
import static io.outpost.history.HistoryFixture.ROLE;
import static io.outpost.history.HistoryFixture.awaitTotal;
import static io.outpost.history.HistoryFixture.event;
import static io.outpost.history.HistoryFixture.page;
import static io.outpost.history.HistoryFixture.role;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import org.eclipse.microprofile.config.ConfigProvider;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.outpost.model.Topics;
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

    /** {@code length} characters drawn from {@code first..last}: random, so that no compression can shorten them. */
    private static String randomText(Random random, int length, char first, char last) {
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append((char) (first + random.nextInt(last - first + 1)));
        }
        return text.toString();
    }

    @Test
    void aNameOfAnyLengthIsStoredListedAndFoundByItsEnd() {
        Random random = new Random(7);
        // 3,000 bytes of UTF-8 and 3,000 of ASCII: each beyond what a B-tree entry holds (2,704 bytes)
        String cjk = randomText(random, 1000, '\u4e00', '\u9fff');
        String ascii = randomText(random, 3000, 'A', 'Z');
        UUID sandbox = UUID.randomUUID();
        UUID first = UUID.randomUUID();
        List<ObjectNode> events = List.of(role(sandbox, first, cjk), role(sandbox, UUID.randomUUID(), ascii),
                role(sandbox, first, cjk), event(sandbox, PROFILE_LIST, UUID.randomUUID(), cjk),
                event(sandbox, PROFILE_LIST, UUID.randomUUID(), ascii));
        HistoryFixture.publish(events);
        awaitTotal(sandbox, ROLE, 3);
        awaitTotal(sandbox, PROFILE_LIST, 2);

        assertThat(page(sandbox, ROLE, Map.of()).getList("transactions.version.name", String.class))
                .containsExactly(cjk, ascii, cjk);
        assertThat(page(sandbox, PROFILE_LIST, Map.of()).getList("transactions.version.name", String.class))
                .containsExactly(ascii, cjk);
        var byCjk = page(sandbox, ROLE, Map.of("name", cjk.substring(900, 1000)));
        assertThat(byCjk.getList("transactions.transaction_id", String.class))
                .containsExactly(events.get(2).get("transaction_id").asText(), events.get(0).get("transaction_id").asText());
        assertThat(byCjk.getLong("page_meta.total")).isEqualTo(2);
        var byAscii = page(sandbox, ROLE, Map.of("name", ascii.substring(2900, 3000).toLowerCase(java.util.Locale.ROOT)));
        assertThat(byAscii.getList("transactions.version.name", String.class)).containsExactly(ascii);
        assertThat(byAscii.getLong("page_meta.total")).isEqualTo(1);
        assertThat(HistoryFixture.kafka().read(Topics.deadLetter(Topics.SANDBOX_CONFIG_TRANSACTIONS), sandbox.toString(), 1,
                Duration.ofSeconds(3))).as("dead letters").isEmpty();
    }

    /** Work on a scratch database's history schema, over one connection. */
    @FunctionalInterface
    private interface OnSchema {
        void run(Statement sql) throws Exception;
    }

    /**
     * Migrates a scratch database (C locale) to {@code version}, fills it with {@code before}, migrates it to the
     * latest version, and checks it with {@code after}: what Flyway does at start to a populated store.
     */
    private static void migrateFilled(String version, OnSchema before, OnSchema after) throws Exception {
        String url = ConfigProvider.getConfig().getValue("quarkus.datasource.jdbc.url", String.class);
        String user = ConfigProvider.getConfig().getValue("quarkus.datasource.username", String.class);
        String password = ConfigProvider.getConfig().getOptionalValue("quarkus.datasource.password", String.class)
                .orElse("");
        String database = "v" + version + "_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection admin = DriverManager.getConnection(url, user, password); Statement sql = admin.createStatement()) {
            // C: PostgreSQL's lower() leaves every non-ASCII letter as it is
            sql.execute("CREATE DATABASE " + database + " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'");
        }
        String scratch = url.substring(0, url.lastIndexOf('/') + 1) + database;
        try {
            Flyway flyway = Flyway.configure().dataSource(scratch, user, password).schemas("history")
                    .defaultSchema("history").createSchemas(true)
                    .locations("classpath:db/migration").target(version)
                    .load();
            flyway.migrate();
            try (Connection db = DriverManager.getConnection(scratch, user, password); Statement sql = db.createStatement()) {
                before.run(sql);
            }
            Flyway.configure().configuration(flyway.getConfiguration()).target("latest").load().migrate();
            try (Connection db = DriverManager.getConnection(scratch, user, password); Statement sql = db.createStatement()) {
                after.run(sql);
            }
        } finally {
            try (Connection admin = DriverManager.getConnection(url, user, password); Statement sql = admin.createStatement()) {
                sql.execute("DROP DATABASE " + database + " WITH (FORCE)");
            }
        }
    }

    @Test
    void migrationFiveRefoldsNamesStoredByTheLocaleDependentRule() throws Exception {
        UUID sandbox = UUID.randomUUID();
        migrateFilled("4", sql -> {
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
        }, sql -> {
            assertThat(names(sql, "SELECT name_folded AS n, total FROM history.name_total ORDER BY 1"))
                    .containsExactly(Map.entry("admin", 2L), Map.entry("strasse", 2L), Map.entry("éclair", 1L));
            assertThat(names(sql, "SELECT name_folded AS n, count(*) AS total FROM history.config_transaction "
                    + "GROUP BY 1 ORDER BY 1")).containsExactly(Map.entry("admin", 2L), Map.entry("strasse", 2L),
                            Map.entry("éclair", 1L));
        });
    }

    @Test
    void migrationSixKeysNamesByDigestOnAFilledStoreAndThenTakesLongNames() throws Exception {
        UUID sandbox = UUID.randomUUID();
        String insert = "INSERT INTO history.config_transaction (sandbox_id, resource_type, resource_id, transaction_id, "
                + "account_id, issued_at, operation, version_id, version, name_folded) VALUES ('" + sandbox + "', '%s', "
                + "gen_random_uuid(), '%s', 'a', now(), 'create', 'v', jsonb_build_object('name', '%s'), '%s')";
        // what the store upserts (TransactionStore), after V6
        String upsert = "INSERT INTO history.name_total AS n VALUES ('" + sandbox + "', 'role', '%s', 1) "
                + "ON CONFLICT (sandbox_id, resource_type, md5(name_folded)) DO UPDATE SET total = n.total + excluded.total";
        String longName = randomText(new Random(6), 1000, '\u4e00', '\u9fff');
        migrateFilled("5", sql -> {
            sql.execute(insert.formatted(ROLE, "tx-1", "Admin", "admin"));
            sql.execute(insert.formatted(ROLE, "tx-2", "ADMIN", "admin"));
            sql.execute(insert.formatted(ROLE, "tx-3", "Ops", "ops"));
            sql.execute(insert.formatted(PROFILE_LIST, "tx-4", "Ranked", "ranked"));
            sql.execute("INSERT INTO history.name_total SELECT sandbox_id, resource_type, name_folded, count(*) "
                    + "FROM history.config_transaction GROUP BY 1, 2, 3");
        }, sql -> {
            // the profile lists' names are no longer counted: nothing filters them by name
            assertThat(names(sql, "SELECT name_folded AS n, total FROM history.name_total ORDER BY 1"))
                    .containsExactly(Map.entry("admin", 2L), Map.entry("ops", 1L));
            sql.execute(insert.formatted(ROLE, "tx-5", longName, longName));
            sql.execute(upsert.formatted(longName));
            sql.execute(insert.formatted(ROLE, "tx-6", longName, longName));
            sql.execute(upsert.formatted(longName));
            sql.execute(upsert.formatted("ops"));
            assertThat(names(sql, "SELECT name_folded AS n, total FROM history.name_total ORDER BY 1"))
                    .containsExactly(Map.entry("admin", 2L), Map.entry("ops", 2L), Map.entry(longName, 2L));
        });
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
