package io.outpost.model.api;

import static io.outpost.model.TestJson.assertSerializesTo;
import static io.outpost.model.TestJson.fieldNames;
import static io.outpost.model.TestJson.parse;
import static io.outpost.model.TestJson.read;
import static io.outpost.model.TestJson.roundTrip;
import static io.outpost.model.TestJson.tree;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

class NotificationJsonTest {

    private static final Instant CREATED = Instant.parse("2026-01-02T03:04:05Z");

    @Test
    void writesSpecFieldNamesAndValues() {
        Notification n = new Notification("hello", "/v1/inbox/7", Map.of("kind", "gift"), "\"e1\"", "n-1", CREATED);

        assertSerializesTo(n, """
                {"message":"hello","svc_url":"/v1/inbox/7","custom_data":{"kind":"gift"},
                 "etag":"\\"e1\\"","notification_id":"n-1","created":"2026-01-02T03:04:05Z"}""");
    }

    @Test
    void omitsAbsentOptionalFields() {
        JsonNode json = tree(new Notification("hello", null, null, null, "n-1", CREATED));

        assertThat(fieldNames(json)).containsExactlyInAnyOrder("message", "notification_id", "created");
    }

    @Test
    void writesCreatedAsIsoStringWithFractionKept() {
        Instant precise = Instant.parse("2026-01-02T03:04:05.123456789Z");

        JsonNode created = tree(new Notification("m", null, null, null, "n", precise)).get("created");

        assertThat(created.isTextual()).isTrue();
        assertThat(created.asText()).isEqualTo("2026-01-02T03:04:05.123456789Z");
    }

    @Test
    void readsCreatedWithOffsetAsSameInstant() {
        Notification n = read("""
                {"message":"m","notification_id":"n","created":"2026-01-02T05:04:05+02:00"}""",
                Notification.class);

        assertThat(n.created()).isEqualTo(CREATED);
    }

    @Test
    void passesCustomDataValuesThroughUnchanged() {
        Map<String, Object> nested = new LinkedHashMap<>();
        nested.put("level", 3);
        nested.put("tags", List.of("a", "b"));
        Map<String, Object> custom = new LinkedHashMap<>();
        custom.put("text", "x");
        custom.put("count", 42);
        custom.put("ratio", 1.5);
        custom.put("flag", true);
        custom.put("off", false);
        custom.put("nothing", null);
        custom.put("list", new ArrayList<>(Arrays.asList(1, "two", null, Map.of("three", 3))));
        custom.put("nested", nested);

        JsonNode json = tree(new Notification("m", null, custom, null, "n", CREATED)).get("custom_data");

        assertThat(json).isEqualTo(parse("""
                {"text":"x","count":42,"ratio":1.5,"flag":true,"off":false,"nothing":null,
                 "list":[1,"two",null,{"three":3}],"nested":{"level":3,"tags":["a","b"]}}"""));
    }

    @Test
    void readsCustomDataWithNullValueAndKeepsIt() {
        Notification n = read("""
                {"message":"m","notification_id":"n","created":"2026-01-02T03:04:05Z",
                 "custom_data":{"nothing":null,"deep":{"arr":[true,2.5]}}}""", Notification.class);

        assertThat(n.customData()).containsEntry("nothing", null)
                .containsEntry("deep", Map.of("arr", List.of(true, 2.5)));
        assertThat(tree(n).get("custom_data")).isEqualTo(parse("""
                {"nothing":null,"deep":{"arr":[true,2.5]}}"""));
    }

    @Test
    void roundTripsFullAndMinimalNotification() {
        Map<String, Object> custom = new LinkedHashMap<>();
        custom.put("count", 42);
        custom.put("nested", Map.of("ok", true));
        Notification full = new Notification("hello", "/x", custom, "e", "n-1", CREATED);
        Notification minimal = new Notification("", null, null, null, "n-2", CREATED);

        assertThat(roundTrip(full)).isEqualTo(full);
        assertThat(roundTrip(minimal)).isEqualTo(minimal);
    }

    @Test
    void ignoresUnknownFieldsWhenReading() {
        Notification n = read("""
                {"message":"m","notification_id":"n","created":"2026-01-02T03:04:05Z","future":1}""",
                Notification.class);

        assertThat(n).isEqualTo(new Notification("m", null, null, null, "n", CREATED));
    }
}
