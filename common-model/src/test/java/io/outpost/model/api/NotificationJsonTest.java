package io.outpost.model.api;

import static io.outpost.model.TestJson.assertSerializesTo;
import static io.outpost.model.TestJson.fieldNames;
import static io.outpost.model.TestJson.parse;
import static io.outpost.model.TestJson.read;
import static io.outpost.model.TestJson.roundTrip;
import static io.outpost.model.TestJson.tree;
import static org.assertj.core.api.Assertions.assertThat;

import static io.outpost.model.TestJson.MAPPER;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.outpost.model.RawJsonObject;

class NotificationJsonTest {

    private static final Instant CREATED = Instant.parse("2026-01-02T03:04:05Z");

    @Test
    void writesSpecFieldNamesAndValues() {
        Notification n = new Notification("hello", "/v1/inbox/7", new RawJsonObject("{\"kind\":\"gift\"}"), "\"e1\"", "n-1",
                CREATED);

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
    void writesCustomDataTextInPlace() throws Exception {
        String custom = "{\"text\":\"x\",\"count\":42,\"ratio\":1.50,\"flag\":true,\"off\":false,\"nothing\":null,"
                + "\"list\":[1,\"two\",null,{\"three\":3}],\"nested\":{\"level\":3,\"tags\":[\"a\",\"b\"]}}";

        String written = MAPPER.writeValueAsString(new Notification("m", null, new RawJsonObject(custom), null, "n", CREATED));

        assertThat(written).isEqualTo("{\"message\":\"m\",\"custom_data\":" + custom
                + ",\"notification_id\":\"n\",\"created\":\"2026-01-02T03:04:05Z\"}");
    }

    @Test
    void readsCustomDataWithNullValueAndKeepsIt() {
        Notification n = read("""
                {"message":"m","notification_id":"n","created":"2026-01-02T03:04:05Z",
                 "custom_data":{"nothing":null,"deep":{"arr":[true,2.5]}}}""", Notification.class);

        assertThat(n.customData().json()).isEqualTo("{\"nothing\":null,\"deep\":{\"arr\":[true,2.5]}}");
        assertThat(tree(n).get("custom_data")).isEqualTo(parse("""
                {"nothing":null,"deep":{"arr":[true,2.5]}}"""));
    }

    @Test
    void roundTripsFullAndMinimalNotification() {
        RawJsonObject custom = new RawJsonObject("{\"count\":42,\"nested\":{\"ok\":true}}");
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
