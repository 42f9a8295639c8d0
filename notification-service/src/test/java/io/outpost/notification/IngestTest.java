package io.outpost.notification;

import static io.outpost.notification.Fixture.ids;
import static io.outpost.notification.Fixture.page;
import static io.outpost.notification.Fixture.poll;
import static io.outpost.notification.Fixture.reader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.outpost.model.Topics;
import io.outpost.model.api.Notification;
import io.outpost.model.api.NotificationPage;
import io.outpost.testsupport.TestKafka;
import io.quarkus.test.junit.QuarkusTest;

/** DESIGN §4 ingest through the real broker: valid events are stored once, invalid ones dead-lettered. */
@QuarkusTest
class IngestTest {

    private static final TestKafka KAFKA = new TestKafka();
    private static final String DLQ = Topics.deadLetter(Topics.PLAYER_NOTIFICATIONS);

    @AfterAll
    static void close() {
        KAFKA.close();
    }

    /** Everything stored for the player, once at least {@code expected} notifications are there. */
    private static NotificationPage readAll(UUID player, int expected) {
        return await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&max_page_size=100&deadline=0").get()),
                p -> p.notifications().size() >= expected);
    }

    @Test
    void storesEventsInTopicOrderAndAssignsMissingIdsAndTimes() throws Exception {
        UUID player = UUID.randomUUID();
        KAFKA.send(Topics.PLAYER_NOTIFICATIONS, player.toString(), "{\"player_uuid\":\"" + player + "\",\"message\":\"one\","
                + "\"svc_url\":\"/a\",\"custom_data\":{\"z\":1,\"a\":{\"deep\":[1.50]}},\"etag\":\"e1\","
                + "\"notification_id\":\"id-1\",\"created\":\"2026-03-04T05:06:07.5Z\"}");
        KAFKA.send(Topics.PLAYER_NOTIFICATIONS, player.toString(), "{\"player_uuid\":\"" + player + "\",\"message\":\"two\"}");
        List<Notification> stored = readAll(player, 2).notifications();
        assertThat(stored).hasSize(2);
        assertThat(Fixture.JSON.writeValueAsString(stored.get(0))).isEqualTo("{\"message\":\"one\",\"svc_url\":\"/a\","
                + "\"custom_data\":{\"z\":1,\"a\":{\"deep\":[1.50]}},\"etag\":\"e1\",\"notification_id\":\"id-1\","
                + "\"created\":\"2026-03-04T05:06:07.500Z\"}");
        assertThat(stored.get(1).message()).isEqualTo("two");
        assertThat(stored.get(1).notificationId()).matches("[0-9a-f-]{36}");
        assertThat(stored.get(1).created()).isNotNull();
    }

    @Test
    void repeatedIdIsIngestedOnce() throws Exception {
        UUID player = UUID.randomUUID();
        String event = "{\"player_uuid\":\"" + player + "\",\"message\":\"once\",\"notification_id\":\"dup\"}";
        KAFKA.send(Topics.PLAYER_NOTIFICATIONS, player.toString(), event);
        KAFKA.send(Topics.PLAYER_NOTIFICATIONS, player.toString(), event);
        KAFKA.send(Topics.PLAYER_NOTIFICATIONS, player.toString(), event.replace("dup", "after"));
        assertThat(ids(readAll(player, 2))).containsExactly("dup", "after");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "not json at all                                   | value: JSON decode error [json_invalid]",
            // two events concatenated into one value: neither is stored (Jackson's default stored the first)
            "{\"player_uuid\":\"PLAYER\",\"message\":\"m\"}{\"player_uuid\":\"PLAYER\",\"message\":\"n\"} | value: JSON decode error [json_invalid]",
            // JSON, but not an event object: its kind is named, as a field's would be
            "[{\"player_uuid\":\"PLAYER\",\"message\":\"m\"}]   | value: Input should be a valid dictionary [json_invalid]",
            "\"just text\"                                      | value: Input should be a valid dictionary [json_invalid]",
            "1e999999                                          | value: Input should be a valid dictionary [json_invalid]",
            "{\"message\":\"m\"}                                | value.player_uuid: Field required [missing]",
            "{\"player_uuid\":\"PLAYER\"}                       | value.message: Field required [missing]",
            "{\"player_uuid\":\"PLAYER\",\"message\":\"LONG\"}   | value.message: String should have at most 4096 characters [string_too_long]",
            "{\"player_uuid\":\"PLAYER\",\"message\":\"m\",\"svc_url\":\"\"} | value.svc_url: String should have at least 1 character [string_too_short]",
            "{\"player_uuid\":\"PLAYER\",\"message\":\"m\",\"svc_url\":\"LONG\"} | value.svc_url: String should have at most 4096 characters [string_too_long]",
            "{\"player_uuid\":\"PLAYER\",\"message\":\"m\",\"etag\":\"\"} | value.etag: String should have at least 1 character [string_too_short]",
            "{\"player_uuid\":\"PLAYER\",\"message\":\"m\",\"custom_data\":[1]} | value.custom_data: Input should be a valid dictionary [json_invalid]",
            "{\"player_uuid\":12345,\"message\":\"m\"}             | value.player_uuid: Input should be a valid string [json_invalid]",
            "{\"player_uuid\":\"PLAYER\",\"message\":123}           | value.message: Input should be a valid string [json_invalid]",
            "{\"player_uuid\":\"PLAYER\",\"message\":1e999999}      | value.message: Input should be a valid string [json_invalid]",
            "{\"player_uuid\":\"PLAYER\",\"message\":true}          | value.message: Input should be a valid string [json_invalid]",
            "{\"player_uuid\":\"PLAYER\",\"message\":\"m\",\"svc_url\":1.5} | value.svc_url: Input should be a valid string [json_invalid]",
            "{\"player_uuid\":\"PLAYER\",\"message\":\"m\",\"etag\":false} | value.etag: Input should be a valid string [json_invalid]",
            "{\"player_uuid\":\"PLAYER\",\"message\":\"m\",\"notification_id\":7} | value.notification_id: Input should be a valid string [json_invalid]",
            "{\"player_uuid\":\"OTHER\",\"message\":\"m\"}      | key: Input should be 'OTHER' [literal_error]",
            // every fault at once, the wrongly typed values first, then the other fields' checks
            "{\"player_uuid\":\"PLAYER\",\"message\":123,\"svc_url\":\"\",\"etag\":true,\"created\":5} | value.message: Input should be a valid string [json_invalid]; value.etag: Input should be a valid string [json_invalid]; value.created: Input should be a valid datetime from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z [datetime_parsing]; value.svc_url: String should have at least 1 character [string_too_short]",
            "{\"player_uuid\":12345,\"message\":[],\"custom_data\":{\"k\":1}} | value.player_uuid: Input should be a valid string [json_invalid]; value.message: Input should be a valid string [json_invalid]" })
    void invalidEventIsDeadLetteredWithItsReasonAndDoesNotStallThePartition(String value, String reason)
            throws Exception {
        UUID player = UUID.randomUUID();
        String other = UUID.randomUUID().toString();
        String bad = value.replace("PLAYER", player.toString()).replace("OTHER", other).replace("LONG", "x".repeat(4097));
        KAFKA.send(Topics.PLAYER_NOTIFICATIONS, player.toString(), bad);
        KAFKA.send(Topics.PLAYER_NOTIFICATIONS, player.toString(),
                "{\"player_uuid\":\"" + player + "\",\"message\":\"behind it\",\"notification_id\":\"ok\"}");
        assertThat(ids(readAll(player, 1))).containsExactly("ok");
        List<TestKafka.Received> letters = KAFKA.read(DLQ, player.toString(), 1, Duration.ofSeconds(30));
        assertThat(letters).hasSize(1);
        assertThat(letters.get(0).value()).isEqualTo(bad);
        assertThat(letters.get(0).headers().get(Topics.DLQ_REASON_HEADER)).isEqualTo(reason.replace("OTHER", other));
    }

    @Test
    void eventWithoutKeyIsDeadLettered() throws Exception {
        UUID player = UUID.randomUUID();
        String value = "{\"player_uuid\":\"" + player + "\",\"message\":\"keyless " + player + "\"}";
        KAFKA.send(Topics.PLAYER_NOTIFICATIONS, null, value);
        List<TestKafka.Received> letters = await().atMost(Duration.ofSeconds(30)).until(() -> KAFKA.read(DLQ, null,
                Integer.MAX_VALUE, Duration.ofSeconds(2)).stream().filter(r -> value.equals(r.value())).toList(),
                found -> !found.isEmpty());
        assertThat(letters).hasSize(1);
        assertThat(letters.get(0).headers().get(Topics.DLQ_REASON_HEADER)).isEqualTo("key: Field required [missing]");
    }
}
