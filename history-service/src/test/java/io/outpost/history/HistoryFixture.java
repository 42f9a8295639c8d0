package io.outpost.history;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.outpost.model.Permissions;
import io.outpost.model.Topics;
import io.outpost.testsupport.TestKafka;
import io.outpost.testsupport.TestTokens;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;

/** Publishes config transactions through the real topic and reads the listings back over HTTP. */
final class HistoryFixture {

    static final String ROLE = "role";
    static final String PROFILE_LIST = "match-making-profile-list";
    static final ObjectMapper JSON = new ObjectMapper();
    private static TestKafka kafka;

    private HistoryFixture() {
    }

    static synchronized TestKafka kafka() {
        if (kafka == null) {
            kafka = new TestKafka();
        }
        return kafka;
    }

    /** A valid event of {@code type} with a fresh transaction id; adjust its fields before sending. */
    static ObjectNode event(UUID sandbox, String type, UUID resource, String name) {
        ObjectNode version = JSON.createObjectNode().put("id", resource.toString());
        if (name != null) {
            version.put("name", name);
        }
        ObjectNode event = JSON.createObjectNode()
                .put("transaction_id", "tx-" + UUID.randomUUID())
                .put("sandbox_id", sandbox.toString())
                .put("resource_type", type)
                .put("resource_id", resource.toString())
                .put("account_id", "account-1")
                .put("issued_at", Instant.parse("2026-03-04T05:06:07.123456Z").toString())
                .put("operation", "update")
                .put("version_id", "v-" + UUID.randomUUID());
        event.set("version", version);
        return event;
    }

    static ObjectNode role(UUID sandbox, UUID role, String name) {
        return event(sandbox, ROLE, role, name);
    }

    /** Sends every event keyed by its sandbox, in order, and waits until the broker has them all. */
    static void publish(List<ObjectNode> events) {
        List<Map.Entry<String, String>> records = new ArrayList<>();
        for (ObjectNode event : events) {
            records.add(Map.entry(event.get("sandbox_id").asText(), event.toString()));
        }
        kafka().sendAll(Topics.SANDBOX_CONFIG_TRANSACTIONS, records);
    }

    static void publish(ObjectNode... events) {
        publish(List.of(events));
    }

    /** Publishes and waits until the listing of their sandbox and type holds {@code expectedTotal}. */
    static void publishAndAwait(List<ObjectNode> events, long expectedTotal) {
        publish(events);
        ObjectNode last = events.get(events.size() - 1);
        awaitTotal(UUID.fromString(last.get("sandbox_id").asText()), last.get("resource_type").asText(), expectedTotal);
    }

    static void awaitTotal(UUID sandbox, String type, long expected) {
        await().atMost(Duration.ofSeconds(60)).until(() -> page(sandbox, type, Map.of("page_size", "1"))
                .getLong("page_meta.total") == expected);
    }

    static String path(UUID sandbox, String type) {
        return "/v1/history/sandbox/" + sandbox + "/" + type;
    }

    static RequestSpecification viewer() {
        return given().header("Authorization", "Bearer " + token(Permissions.SANDBOX_CONFIG_VIEW));
    }

    static String token(String... permissions) {
        return TestTokens.shared().token().permissions(permissions).sign();
    }

    /** One page, asserting a 200. */
    static JsonPath page(UUID sandbox, String type, Map<String, ?> query) {
        return viewer().queryParams(query).when().get(path(sandbox, type)).then().statusCode(200).extract().jsonPath();
    }

    /** Follows cursors from "0" to the end; returns the transaction ids in the order served. */
    static List<String> walk(UUID sandbox, String type, Map<String, String> query, int pageSize) {
        List<String> seen = new ArrayList<>();
        String cursor = "0";
        while (cursor != null) {
            Map<String, String> params = new java.util.HashMap<>(query);
            params.put("cursor", cursor);
            params.put("page_size", String.valueOf(pageSize));
            JsonPath page = page(sandbox, type, params);
            List<String> ids = page.getList("transactions.transaction_id");
            if (page.getString("page_meta.cursor") != null && ids.size() != pageSize) {
                throw new AssertionError("a page before the last is short: " + ids.size());
            }
            seen.addAll(ids);
            cursor = page.getString("page_meta.cursor");
        }
        return seen;
    }

    static List<String> ids(List<ObjectNode> events) {
        return events.stream().map(e -> e.get("transaction_id").asText()).toList();
    }
}
