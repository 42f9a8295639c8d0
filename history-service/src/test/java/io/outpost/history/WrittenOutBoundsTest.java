package io.outpost.history;

import static io.outpost.history.HistoryFixture.ROLE;
import static io.outpost.history.HistoryFixture.awaitTotal;
import static io.outpost.history.HistoryFixture.kafka;
import static io.outpost.history.HistoryFixture.path;
import static io.outpost.history.HistoryFixture.role;
import static io.outpost.history.HistoryFixture.viewer;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.outpost.model.Topics;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * DESIGN §4a: what the store keeps is never expanded on the way out. jsonb writes numbers without an exponent, so
 * a number written in more than 1,000 characters, or a snapshot written in more than 2 MiB, is dead-lettered at
 * ingest; the store measures every snapshot as PostgreSQL writes it; a row that breaks the bounds all the same
 * (stored before them, or by an earlier release) is listed without its snapshot.
 */
@QuarkusTest
class WrittenOutBoundsTest {

    private static final String NUMBER = "Value error, number should have at most 1000 characters written without an "
            + "exponent [value_error]";
    private static final String SNAPSHOT = "value.version: Value error, snapshot should take at most 2097152 bytes "
            + "written out, numbers without an exponent [value_error]";

    @Inject
    Pool pool;

    /** {@code count} copies of {@code number} as a JSON array. */
    private static String numbers(String number, int count) {
        return "[" + String.join(",", java.util.Collections.nCopies(count, number)) + "]";
    }

    private static String withVersion(ObjectNode event, String version) {
        return event.put("version", "@@").toString().replace("\"version\":\"@@\"", "\"version\":" + version);
    }

    @Test
    void aNumberOrSnapshotWrittenOutPastItsBoundIsDeadLetteredAndTheNextTransactionIsListed() {
        UUID sandbox = UUID.randomUUID();
        String key = sandbox.toString();
        Map<String, String> refused = new LinkedHashMap<>();
        // 27 KB in the record, 390 MB written out: 3,000 numbers of 131,072 digits
        refused.put(withVersion(role(sandbox, UUID.randomUUID(), "x"), "{\"n\":" + numbers("1e131071", 3_000) + "}"),
                "value.version.n.0: " + NUMBER);
        refused.put(withVersion(role(sandbox, UUID.randomUUID(), "x"), "{\"n\":[1,1e1000]}"), "value.version.n.1: " + NUMBER);
        refused.put(withVersion(role(sandbox, UUID.randomUUID(), "x"), "{\"n\":-1e999}"), "value.version.n: " + NUMBER);
        refused.put(withVersion(role(sandbox, UUID.randomUUID(), "x"), "{\"a\":{\"b\":[0e-999]}}"),
                "value.version.a.b.0: " + NUMBER);
        refused.put(withVersion(role(sandbox, UUID.randomUUID(), "x"), "{\"n\":" + numbers("1e999", 2_100) + "}"),
                SNAPSHOT);
        // just under: 1,000 characters each; 2,090 of them are 2,094,187 bytes written out
        ObjectNode under = role(sandbox, UUID.randomUUID(), "under");
        String underText = withVersion(under.deepCopy(), "{\"name\":\"under\",\"n\":[1e999,-1e998,1e-998,0e-998,-1.5e-996]}");
        ObjectNode large = role(sandbox, UUID.randomUUID(), "large");
        String largeText = withVersion(large.deepCopy(), "{\"n\":" + numbers("1e999", 2_090) + "}");
        ObjectNode next = role(sandbox, UUID.randomUUID(), "next");
        List<Map.Entry<String, String>> records = new ArrayList<>();
        refused.keySet().forEach(value -> records.add(Map.entry(key, value)));
        records.add(Map.entry(key, underText));
        records.add(Map.entry(key, largeText));
        records.add(Map.entry(key, next.toString()));
        kafka().sendAll(Topics.SANDBOX_CONFIG_TRANSACTIONS, records);

        awaitTotal(sandbox, ROLE, 3);
        Map<String, String> reasons = new LinkedHashMap<>();
        kafka().read(Topics.deadLetter(Topics.SANDBOX_CONFIG_TRANSACTIONS), key, refused.size(), Duration.ofSeconds(60))
                .forEach(letter -> reasons.put(letter.value(), letter.headers().get(Topics.DLQ_REASON_HEADER)));
        assertThat(reasons).containsExactlyEntriesOf(refused);
        JsonPath newest = viewer().queryParam("page_size", 1).when().get(path(sandbox, ROLE)).then().statusCode(200)
                .extract().jsonPath();
        assertThat(newest.getList("transactions.transaction_id")).containsExactly(next.get("transaction_id").asText());
        String body = viewer().queryParam("sort_order", "asc").queryParam("page_size", 1).when()
                .get(path(sandbox, ROLE)).then().statusCode(200).extract().asString();
        assertThat(body).contains(under.get("transaction_id").asText()).contains("\"n\":[1" + "0".repeat(999) + ",-1"
                + "0".repeat(998) + ",0." + "0".repeat(997) + "1,0." + "0".repeat(998) + ",-0." + "0".repeat(995) + "15]");
    }

    /** The measure the store writes with each row is the length of what PostgreSQL writes for its snapshot. */
    @Test
    void theStoreMeasuresEverySnapshotAsPostgreSqlWritesIt() {
        UUID sandbox = UUID.randomUUID();
        List<String> versions = List.of("{}", "[]", "0", "-7", "\"text\"", "true", "false", "1e999",
                "{\"name\":\"Admin\",\"perms\":[\"a\",\"b\"],\"n\":{}}",
                "{\"esc\":\"q\\\"b\\\\s\\/ \\b\\f\\n\\r\\t \\u0001\\u001f\",\"k\\u0002\":[[],[{}],[1,[2,[3]]]]}",
                "{\"utf8\":\"\u00e9\u20ac\ud83d\ude00 caf\\u00e9\",\"\u00fc\":null}",
                "{\"n\":[1E+2,-0,-0.0,1.50e1,0e-5,1.0e-5,12345678901234567890123,-9223372036854775808,0.1,3e-7]}",
                "{\"b\":1,\"a\":2,\"aa\":[true,false,null]}");
        List<ObjectNode> events = new ArrayList<>();
        List<Map.Entry<String, String>> records = new ArrayList<>();
        for (String version : versions) {
            ObjectNode event = role(sandbox, UUID.randomUUID(), "m");
            events.add(event);
            records.add(Map.entry(sandbox.toString(), withVersion(event.deepCopy(), version)));
        }
        kafka().sendAll(Topics.SANDBOX_CONFIG_TRANSACTIONS, records);
        awaitTotal(sandbox, ROLE, versions.size());

        Map<String, Integer> measured = new LinkedHashMap<>();
        Map<String, Integer> written = new LinkedHashMap<>();
        for (Row row : pool.preparedQuery("SELECT transaction_id, version_bytes, octet_length(version::text) AS "
                + "written FROM history.config_transaction WHERE sandbox_id = $1 ORDER BY id").execute(Tuple.of(sandbox))
                .await().atMost(Duration.ofSeconds(10))) {
            measured.put(row.getString("transaction_id"), row.getInteger("version_bytes"));
            written.put(row.getString("transaction_id"), row.getInteger("written"));
        }
        assertThat(measured.keySet()).containsExactlyElementsOf(HistoryFixture.ids(events));
        assertThat(measured).containsExactlyEntriesOf(written);
    }

    /**
     * A row appended without its measure — by a replica of an earlier release, or stored before the bounds and
     * measured by migration V9 — is measured by the database by the same rule; one that breaks it is listed without
     * its snapshot, which is never written out, and the rows around it are listed whole.
     */
    @Test
    void aRowThatBreaksTheBoundsAnywayIsListedWithoutItsSnapshot() {
        UUID sandbox = UUID.randomUUID();
        List<String> versions = List.of("{\"name\":\"before\",\"n\":[1e999]}",
                "{\"name\":\"poison\",\"n\":" + numbers("1e131071", 30) + "}",
                "{\"n\":" + numbers("1e999", 2_100) + "}", "{\"n\":[0e-999]}", "{\"name\":\"after\"}");
        List<String> ids = new ArrayList<>();
        for (String version : versions) {
            String id = "old-" + UUID.randomUUID();
            ids.add(id);
            pool.preparedQuery("INSERT INTO history.config_transaction (sandbox_id, resource_type, resource_id, "
                    + "transaction_id, account_id, issued_at, operation, version_id, version) "
                    + "VALUES ($1, 'role', $2, $3, 'account-1', now(), 'update', 'v', $4::text::jsonb)")
                    .execute(Tuple.of(sandbox, UUID.randomUUID(), id, version)).await().atMost(Duration.ofSeconds(30));
        }
        List<Integer> measured = new ArrayList<>();
        pool.preparedQuery("SELECT version_bytes FROM history.config_transaction WHERE sandbox_id = $1 ORDER BY id")
                .execute(Tuple.of(sandbox)).await().atMost(Duration.ofSeconds(10))
                .forEach(row -> measured.add(row.getInteger("version_bytes")));
        assertThat(measured).containsExactly(1_027, null, null, null, 17);

        String body = viewer().queryParam("sort_order", "asc").when().get(path(sandbox, ROLE)).then().statusCode(200)
                .extract().asString();
        JsonPath page = JsonPath.from(body);
        assertThat(page.getList("transactions.transaction_id")).containsExactlyElementsOf(ids);
        assertThat(page.getString("transactions[0].version.name")).isEqualTo("before");
        assertThat(page.getMap("transactions[1]")).doesNotContainKey("version");
        assertThat(page.getMap("transactions[2]")).doesNotContainKey("version");
        assertThat(page.getMap("transactions[3]")).doesNotContainKey("version");
        assertThat(page.getString("transactions[4].version.name")).isEqualTo("after");
        assertThat(body.length()).isLessThan(3_000);
    }
}
