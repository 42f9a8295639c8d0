package io.outpost.model.event;

import static io.outpost.model.TestJson.assertSerializesTo;
import static io.outpost.model.TestJson.fieldNames;
import static io.outpost.model.TestJson.parse;
import static io.outpost.model.TestJson.read;
import static io.outpost.model.TestJson.roundTrip;
import static io.outpost.model.TestJson.tree;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.outpost.model.RawJsonObject;

class NotificationEventJsonTest {

    private static final String PLAYER = "5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f";
    private static final Instant CREATED = Instant.parse("2026-01-02T03:04:05Z");

    @Test
    void writesSpecFieldNamesIncludingPlayerUuid() {
        NotificationEvent event = new NotificationEvent(PLAYER, "hi", "/x", new RawJsonObject("{\"k\":1}"), "e", "n-1", CREATED);

        assertSerializesTo(event, """
                {"player_uuid":"5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f","message":"hi","svc_url":"/x",
                 "custom_data":{"k":1},"etag":"e","notification_id":"n-1","created":"2026-01-02T03:04:05Z"}""");
    }

    @Test
    void omitsAbsentOptionalFields() {
        NotificationEvent event = new NotificationEvent(PLAYER, "hi", null, null, null, null, null);

        assertThat(fieldNames(tree(event))).containsExactlyInAnyOrder("player_uuid", "message");
    }

    @Test
    void readsProducerEventWithOffsetDateAndUnknownField() {
        NotificationEvent event = read("""
                {"player_uuid":"5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f","message":"hi",
                 "created":"2026-01-02T05:04:05+02:00","producer":"shop"}""", NotificationEvent.class);

        assertThat(event).isEqualTo(new NotificationEvent(PLAYER, "hi", null, null, null, null, CREATED));
    }

    @Test
    void roundTripsWithCustomDataUnchanged() {
        RawJsonObject custom = new RawJsonObject("{\"nothing\":null,\"list\":[1,true,\"x\"],\"nested\":{\"ratio\":0.25}}");
        NotificationEvent event = new NotificationEvent(PLAYER, "hi", "/x", custom, "e", "n-1", CREATED);

        NotificationEvent back = roundTrip(event);

        assertThat(back).isEqualTo(event);
        assertThat(tree(back).get("custom_data")).isEqualTo(parse("""
                {"nothing":null,"list":[1,true,"x"],"nested":{"ratio":0.25}}"""));
    }

    @Test
    void playerParsesPlayerUuid() {
        NotificationEvent event = new NotificationEvent(PLAYER, "hi", null, null, null, null, null);

        assertThat(event.player()).isEqualTo(UUID.fromString(PLAYER));
    }

    @Test
    void withPlayerReplacesOnlyThePlayer() {
        UUID other = UUID.fromString("00000000-0000-4000-8000-000000000001");
        NotificationEvent event = new NotificationEvent(null, "hi", "/x", new RawJsonObject("{\"k\":1}"), "e", "n-1", CREATED);

        assertThat(event.withPlayer(other)).isEqualTo(new NotificationEvent(
                "00000000-0000-4000-8000-000000000001", "hi", "/x", new RawJsonObject("{\"k\":1}"), "e", "n-1", CREATED));
    }
}
