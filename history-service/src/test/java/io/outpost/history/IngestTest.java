package io.outpost.history;

import static io.outpost.history.HistoryFixture.ROLE;
import static io.outpost.history.HistoryFixture.awaitTotal;
import static io.outpost.history.HistoryFixture.kafka;
import static io.outpost.history.HistoryFixture.page;
import static io.outpost.history.HistoryFixture.publish;
import static io.outpost.history.HistoryFixture.role;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.outpost.model.Topics;
import io.outpost.testsupport.TestKafka;
import io.quarkus.test.junit.QuarkusTest;

/** The topic into the store: exact bodies, idempotence, order, and every kind of refused event dead-lettered. */
@QuarkusTest
class IngestTest {

    private static final String TOPIC = Topics.SANDBOX_CONFIG_TRANSACTIONS;
    private static final String DLQ = Topics.deadLetter(TOPIC);

    @Test
    void storedTransactionIsServedExactly() {
        UUID sandbox = UUID.randomUUID();
        UUID role = UUID.fromString("0b7e2f4c-1d3a-4e5b-8c6d-7e8f9a0b1c2d");
        String value = "{\"transaction_id\":\"tx-exact-" + sandbox + "\",\"sandbox_id\":\"" + sandbox + "\","
                + "\"resource_type\":\"role\",\"resource_id\":\"" + role + "\",\"legacy_id\":42,\"account_id\":\"acc-7\","
                + "\"issued_at\":\"2026-05-06T07:08:09.123456Z\",\"operation\":\"create\",\"version_id\":\"v-1\","
                + "\"version_name\":\"First cut\",\"version\":{\"name\":\"Admin, \\\"root\\\"\",\"weight\":1.10,"
                + "\"big\":12345678901234567890123,\"perms\":[\"a:b\",{\"x\":null}],\"on\":true}}";
        kafka().send(TOPIC, sandbox.toString(), value);
        awaitTotal(sandbox, ROLE, 1);
        HistoryFixture.viewer().when().get(HistoryFixture.path(sandbox, ROLE)).then().statusCode(200)
                .contentType("application/json").body(equalTo("{\"transactions\":[{\"account_id\":\"acc-7\","
                        + "\"transaction_id\":\"tx-exact-" + sandbox + "\",\"issued_at\":\"2026-05-06T07:08:09.123456Z\","
                        + "\"operation\":\"create\",\"version_id\":\"v-1\",\"version_name\":\"First cut\","
                        // jsonb keeps numbers exactly and orders keys shortest first
                        + "\"version\":{\"on\":true,\"big\":12345678901234567890123,\"name\":\"Admin, \\\"root\\\"\","
                        + "\"perms\":[\"a:b\",{\"x\":null}],\"weight\":1.10}}],\"page_meta\":{\"page_size\":50,\"total\":1}}"));
    }

    @Test
    void redeliveredTransactionIsStoredOnceAndNothingIsDeadLettered() {
        UUID sandbox = UUID.randomUUID();
        ObjectNode first = role(sandbox, UUID.randomUUID(), "first");
        ObjectNode later = role(sandbox, UUID.randomUUID(), "later");
        // within one batch, then in later batches, before and after the next transaction
        publish(first, first, first.deepCopy());
        publish(later, first);
        awaitTotal(sandbox, ROLE, 2);
        publish(role(sandbox, UUID.randomUUID(), "marker"));
        awaitTotal(sandbox, ROLE, 3);
        var listed = page(sandbox, ROLE, Map.of("sort_order", "asc"));
        assertThat(listed.getList("transactions.transaction_id", String.class)).containsExactly(
                first.get("transaction_id").asText(), later.get("transaction_id").asText(),
                listed.getString("transactions[2].transaction_id"));
        assertThat(kafka().read(DLQ, sandbox.toString(), Integer.MAX_VALUE, Duration.ofSeconds(3))).isEmpty();
    }

    @Test
    void aRepeatedTransactionIdWithOtherContentIsDeadLetteredNeverDropped() {
        UUID sandbox = UUID.randomUUID();
        ObjectNode first = role(sandbox, UUID.randomUUID(), "first");
        ObjectNode inBatch = first.deepCopy().put("account_id", "someone-else");
        ObjectNode afterwards = first.deepCopy().put("version_id", "v-other");
        ObjectNode later = role(sandbox, UUID.randomUUID(), "later");
        publish(first, inBatch);
        publish(afterwards, later);
        awaitTotal(sandbox, ROLE, 2);

        String reason = "value: the store refused it: transaction_id_conflict: transaction_id "
                + first.get("transaction_id").asText() + " of sandbox " + sandbox
                + " is already stored with other content (SQLSTATE 23505) [store_refused]";
        List<TestKafka.Received> letters = kafka().read(DLQ, sandbox.toString(), 2, Duration.ofSeconds(60));
        assertThat(letters).extracting(TestKafka.Received::value)
                .containsExactly(inBatch.toString(), afterwards.toString());
        assertThat(letters).extracting(letter -> letter.headers().get(Topics.DLQ_REASON_HEADER))
                .containsExactly(reason, reason);
        var listed = page(sandbox, ROLE, Map.of("sort_order", "asc"));
        assertThat(listed.getList("transactions.transaction_id", String.class))
                .containsExactly(first.get("transaction_id").asText(), later.get("transaction_id").asText());
        assertThat(listed.getString("transactions[0].account_id")).isEqualTo(first.get("account_id").asText());
        assertThat(listed.getString("transactions[0].version_id")).isEqualTo(first.get("version_id").asText());
    }

    @Test
    void anotherSandboxsTransactionIdHidesNothing() {
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        ObjectNode inA = role(a, UUID.randomUUID(), "in a");
        ObjectNode inB = role(b, UUID.randomUUID(), "in b").put("transaction_id", inA.get("transaction_id").asText());
        publish(inA);
        awaitTotal(a, ROLE, 1);
        publish(inB);
        awaitTotal(b, ROLE, 1);

        assertThat(page(b, ROLE, Map.of()).getList("transactions.version_id", String.class))
                .containsExactly(inB.get("version_id").asText());
        assertThat(page(a, ROLE, Map.of()).getList("transactions.version_id", String.class))
                .containsExactly(inA.get("version_id").asText());
        assertThat(kafka().read(DLQ, b.toString(), Integer.MAX_VALUE, Duration.ofSeconds(3))).isEmpty();
    }

    @Test
    void issuedAtIsKeptToTheMicrosecondTruncatedAndALeapSecondAsItsLastSecond() {
        UUID sandbox = UUID.randomUUID();
        List<ObjectNode> events = new ArrayList<>();
        for (String issuedAt : List.of("2026-12-31T23:59:59.9999999Z", "2026-05-06T07:08:09.123456789Z",
                "2026-06-30T23:59:60Z",
                // before 2000 and before 1970: negative offsets in PostgreSQL's and Java's binary forms
                "1999-12-31T23:59:59.9999999Z", "1969-12-31T23:59:59.0000019Z", "0001-01-01T00:00:00.0000009Z")) {
            events.add(role(sandbox, UUID.randomUUID(), "t").put("issued_at", issuedAt));
        }
        HistoryFixture.publishAndAwait(events, 6);
        assertThat(page(sandbox, ROLE, Map.of("sort_order", "asc")).getList("transactions.issued_at", String.class))
                .containsExactly("2026-12-31T23:59:59.999999Z", "2026-05-06T07:08:09.123456Z", "2026-06-30T23:59:59Z",
                        "1999-12-31T23:59:59.999999Z", "1969-12-31T23:59:59.000001Z", "0001-01-01T00:00:00Z");
    }

    @Test
    void transactionsOfASandboxKeepTheProducersOrder() {
        UUID sandbox = UUID.randomUUID();
        List<ObjectNode> events = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            events.add(role(sandbox, UUID.randomUUID(), "r" + i));
        }
        HistoryFixture.publishAndAwait(events, 300);
        assertThat(HistoryFixture.walk(sandbox, ROLE, Map.of("sort_order", "asc"), 10000))
                .containsExactlyElementsOf(HistoryFixture.ids(events));
    }

    @Test
    void everyKindOfInvalidEventIsDeadLetteredWithItsReasonAndDoesNotBlockTheValidOnes() {
        UUID sandbox = UUID.randomUUID();
        String key = sandbox.toString();
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put("{not json", "value: JSON decode error [json_invalid]");
        // two transactions concatenated into one value: neither is stored (Jackson's default stored the first)
        refused.put(role(sandbox, UUID.randomUUID(), "x").toString() + role(sandbox, UUID.randomUUID(), "y"),
                "value: JSON decode error [json_invalid]");
        // JSON, but not a transaction object: its kind is named, as a field's would be
        refused.put("[" + role(sandbox, UUID.randomUUID(), "x") + "]", "value: Input should be a valid dictionary [json_invalid]");
        refused.put("\"a transaction\"", "value: Input should be a valid dictionary [json_invalid]");
        refused.put(role(sandbox, UUID.randomUUID(), "x").put("legacy_id", "abc").toString(),
                "value.legacy_id: Input should be a valid integer [json_invalid]");
        // Jackson's defaults would read these as 1, as absent, and as the texts "42", "true" and "1.5"
        refused.put(role(sandbox, UUID.randomUUID(), "x").put("legacy_id", new java.math.BigDecimal("1.5")).toString(),
                "value.legacy_id: Input should be a valid integer [json_invalid]");
        refused.put(role(sandbox, UUID.randomUUID(), "x").put("legacy_id", "").toString(),
                "value.legacy_id: Input should be a valid integer [json_invalid]");
        refused.put(role(sandbox, UUID.randomUUID(), "x").put("transaction_id", 42).toString(),
                "value.transaction_id: Input should be a valid string [json_invalid]");
        refused.put(role(sandbox, UUID.randomUUID(), "x").put("version_name", true).toString(),
                "value.version_name: Input should be a valid string [json_invalid]");
        refused.put(role(sandbox, UUID.randomUUID(), "x").put("account_id", new java.math.BigDecimal("1.5")).toString(),
                "value.account_id: Input should be a valid string [json_invalid]");
        refused.put(role(sandbox, UUID.randomUUID(), "x").put("issued_at", "yesterday").toString(),
                "value.issued_at: Input should be a valid datetime from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z "
                        + "[datetime_parsing]");
        // every fault at once: the wrongly typed values in the record's order, then the other fields' checks
        refused.put(role(sandbox, UUID.randomUUID(), "x").put("transaction_id", 42).put("issued_at", 7)
                .put("operation", "rename").put("legacy_id", "abc").toString(),
                "value.transaction_id: Input should be a valid string [json_invalid]; "
                        + "value.issued_at: Input should be a valid datetime from 0001-01-01T00:00:00Z to "
                        + "9999-12-31T23:59:59Z [datetime_parsing]; "
                        + "value.legacy_id: Input should be a valid integer [json_invalid]; "
                        + "value.operation: Input should be one of 'create', 'update', 'delete' [enum]");
        ObjectNode noAccount = role(sandbox, UUID.randomUUID(), "x");
        noAccount.remove("account_id");
        refused.put(noAccount.toString(), "value.account_id: Field required [missing]");
        refused.put(role(sandbox, UUID.randomUUID(), "x").put("resource_type", "group").toString(),
                "value.resource_type: Input should be one of 'role', 'match-making-profile-list' [enum]");
        refused.put(role(sandbox, UUID.randomUUID(), "x").put("operation", "rename").toString(),
                "value.operation: Input should be one of 'create', 'update', 'delete' [enum]");
        refused.put(role(sandbox, UUID.randomUUID(), "x").put("resource_id", "r-1").toString(),
                "value.resource_id: Input should be a valid UUID [uuid_parsing]");
        refused.put(role(sandbox, UUID.randomUUID(), "x").putNull("version").toString(), "value.version: Field required [missing]");
        UUID elsewhere = UUID.randomUUID();
        refused.put(role(elsewhere, UUID.randomUUID(), "x").toString(), "key: Input should be '" + elsewhere + "' [literal_error]");
        refused.put("", "value: Field required [missing]");
        ObjectNode valid = role(sandbox, UUID.randomUUID(), "valid");
        List<Map.Entry<String, String>> records = new ArrayList<>();
        refused.keySet().forEach(value -> records.add(Map.entry(key, value)));
        records.add(Map.entry(key, valid.toString()));
        kafka().sendAll(TOPIC, records);

        awaitTotal(sandbox, ROLE, 1);
        List<TestKafka.Received> letters = kafka().read(DLQ, key, refused.size(), Duration.ofSeconds(60));
        Map<String, String> reasons = new LinkedHashMap<>();
        letters.forEach(letter -> reasons.put(letter.value(), letter.headers().get(Topics.DLQ_REASON_HEADER)));
        assertThat(reasons).containsExactlyEntriesOf(refused);
        assertThat(page(sandbox, ROLE, Map.of()).getString("transactions[0].transaction_id"))
                .isEqualTo(valid.get("transaction_id").asText());
    }

    @Test
    void livenessReportsTheRunningIngest() {
        io.restassured.RestAssured.given().when().get("/q/health/live").then().statusCode(200)
                .body("checks.find { it.name == 'Kafka ingest' }.status", org.hamcrest.Matchers.is("UP"))
                .body("checks.find { it.name == 'Kafka ingest' }.data['sandbox-config-transactions']", org.hamcrest.Matchers.is("consuming"));
    }

    @Test
    void eventWithoutKeyIsDeadLettered() {
        UUID sandbox = UUID.randomUUID();
        String value = role(sandbox, UUID.randomUUID(), "keyless").toString();
        kafka().send(TOPIC, null, value);
        await().atMost(Duration.ofSeconds(60)).until(() -> kafka().read(DLQ, null, Integer.MAX_VALUE, Duration.ofSeconds(2))
                .stream().anyMatch(r -> r.value().equals(value)
                        && "key: Field required [missing]".equals(r.headers().get(Topics.DLQ_REASON_HEADER))));
        assertThat(page(sandbox, ROLE, Map.of()).getLong("page_meta.total")).isZero();
    }
}
