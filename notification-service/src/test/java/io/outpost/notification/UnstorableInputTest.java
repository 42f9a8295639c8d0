package io.outpost.notification;

import static io.outpost.notification.Fixture.TOKENS;
import static io.outpost.notification.Fixture.ids;
import static io.outpost.notification.Fixture.page;
import static io.outpost.notification.Fixture.poll;
import static io.outpost.notification.Fixture.reader;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import io.outpost.model.Permissions;
import io.outpost.model.Topics;
import io.outpost.model.api.NotificationPage;
import io.outpost.notification.store.NotificationStore;
import io.outpost.testsupport.RawBytes;
import io.outpost.testsupport.RawHttp;
import io.outpost.testsupport.TestKafka;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.ValidatableResponse;

/**
 * DESIGN §5: what PostgreSQL cannot keep is refused at the edge — 422 over HTTP, a dead letter with the same
 * words from Kafka — and what follows it still goes through.
 */
@QuarkusTest
class UnstorableInputTest {

    private static final TestKafka KAFKA = new TestKafka();
    private static final String NUL = "String should not contain U+0000 or an unpaired surrogate (U+D800..U+DFFF)";
    private static final String DATETIME =
            "Input should be a valid datetime from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z";
    private static final String RESERVED =
            "Value error, notification_id should not start with 'pos-', which is reserved for position cursors";
    private static final String TOO_DEEP = "Value error, JSON should be nested at most 128 levels deep";

    @Inject
    NotificationStore store;

    @AfterAll
    static void close() {
        KAFKA.close();
    }

    private static ValidatableResponse publish(UUID player, String body) {
        return publish(player, body.getBytes(StandardCharsets.UTF_8));
    }

    private static ValidatableResponse publish(UUID player, byte[] body) {
        return given().header("Authorization", "Bearer " + TOKENS.token()
                .permissions(Permissions.NOTIFICATION_PLAYER_WRITE).sign()).contentType("application/json")
                .body(body).when().post("/notification/v1/player/" + player + "/notification").then();
    }

    private static String fault(String msg, String type, Object... loc) {
        StringBuilder at = new StringBuilder();
        for (Object part : loc) {
            at.append(at.isEmpty() ? "" : ",").append(part instanceof String s ? "\"" + s + "\"" : part);
        }
        return "{\"loc\":[" + at + "],\"msg\":\"" + msg + "\",\"type\":\"" + type + "\"}";
    }

    /** {@code {"a":{"a":…{}…}}}: {@code levels} objects, one inside the other. */
    private static String nested(int levels) {
        return "{\"a\":".repeat(levels - 1) + "{}" + "}".repeat(levels - 1);
    }

    private static Object[] deepLoc(Object... prefix) {
        Object[] loc = new Object[prefix.length + 128];
        System.arraycopy(prefix, 0, loc, 0, prefix.length);
        Arrays.fill(loc, prefix.length, loc.length, "a");
        return loc;
    }

    @Test
    void publishRefusesEveryUnstorableEntryAtItsFieldThenAcceptsAGoodOne() throws Exception {
        UUID player = UUID.randomUUID();
        String entries = String.join(",",
                "{\"message\":\"a\\u0000b\"}",
                "{\"message\":\"m\",\"svc_url\":\"/x\\ud800\"}",
                "{\"message\":\"m\",\"etag\":\"\\udc00e\"}",
                "{\"message\":\"m\",\"notification_id\":\"id\\u0000\"}",
                "{\"message\":\"m\",\"custom_data\":{\"ok\":1,\"k\\u0000\":1}}",
                "{\"message\":\"m\",\"custom_data\":{\"a\":[{\"b\":\"\\u0000\"}]}}",
                "{\"message\":\"m\",\"created\":\"+300000-01-01T00:00:00Z\"}",
                "{\"message\":\"m\",\"created\":\"0000-12-31T23:59:59Z\"}",
                "{\"message\":\"m\",\"notification_id\":\"pos-7\"}",
                "{\"message\":\"m\",\"custom_data\":" + nested(129) + "}",
                "{\"message\":\"at the limits\",\"created\":\"9999-12-31T23:59:59Z\",\"custom_data\":" + nested(128) + "}");
        publish(player, "{\"notifications\":[" + entries + "]}").statusCode(422).body(is("{\"detail\":["
                + String.join(",",
                        fault(NUL, "string_pattern_mismatch", "body", "notifications", 0, "message"),
                        fault(NUL, "string_pattern_mismatch", "body", "notifications", 1, "svc_url"),
                        fault(NUL, "string_pattern_mismatch", "body", "notifications", 2, "etag"),
                        fault(NUL, "string_pattern_mismatch", "body", "notifications", 3, "notification_id"),
                        fault(NUL, "string_pattern_mismatch", "body", "notifications", 4, "custom_data", "k\uFFFD", "[key]"),
                        fault(NUL, "string_pattern_mismatch", "body", "notifications", 5, "custom_data", "a", 0, "b"),
                        fault(DATETIME, "datetime_parsing", "body", "notifications", 6, "created"),
                        fault(DATETIME, "datetime_parsing", "body", "notifications", 7, "created"),
                        fault(RESERVED, "value_error", "body", "notifications", 8, "notification_id"),
                        fault(TOO_DEEP, "value_error", deepLoc("body", "notifications", 9, "custom_data")))
                + "]}"));

        publish(player, "{\"notifications\":[{\"message\":\"fine\",\"notification_id\":\"good\"}]}").statusCode(200);
        NotificationPage page = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()), p -> !p.notifications().isEmpty());
        assertThat(ids(page)).containsExactly("good");
    }

    @Test
    void publishRefusesAPlayerUuidHoldingNulAsUnstorableAndANotificationTooLargeForKafka() throws Exception {
        UUID player = UUID.randomUUID();
        publish(player, "{\"notifications\":[{\"player_uuid\":\"" + player + "\\u0000\",\"message\":\"m\"}]}")
                .statusCode(422).body(is("{\"detail\":[" + fault(NUL, "string_pattern_mismatch", "body", "notifications",
                        0, "player_uuid") + "]}"));
        String big = "x".repeat(999_990); // custom_data within its 1,000,000 bytes, the whole notification past them
        publish(player, "{\"notifications\":[{\"message\":\"fits\"},{\"message\":\"m\",\"custom_data\":{\"b\":\"" + big
                + "\"}}]}").statusCode(422).body("detail", org.hamcrest.Matchers.hasSize(1))
                .body("detail[0].loc", org.hamcrest.Matchers.contains("body", "notifications", 1))
                .body("detail[0].type", is("value_error"))
                .body("detail[0].msg", org.hamcrest.Matchers.matchesPattern(
                        "Value error, Notification should be at most 1000000 bytes as JSON, not 1000[0-9]{3}"));
        publish(player, "{\"notifications\":[{\"message\":\"m\",\"notification_id\":\"just-fits\",\"custom_data\":"
                + "{\"b\":\"" + "x".repeat(900_000) + "\"}}]}").statusCode(200);
        NotificationPage page = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()), p -> !p.notifications().isEmpty());
        assertThat(ids(page)).containsExactly("just-fits");
    }

    @Test
    void publishRefusesATimestampThatDoesNotParseAndJsonPastTheParsersLimits() {
        UUID player = UUID.randomUUID();
        for (String created : List.of("\"yesterday\"", "\"2026-02-30T00:00:00Z\"", "1700000000", "1e400")) {
            publish(player, "{\"notifications\":[{\"message\":\"m\",\"created\":" + created + "}]}").statusCode(422)
                    .body(is("{\"detail\":[" + fault(DATETIME, "datetime_parsing", "body", "notifications", 0,
                            "created") + "]}"));
        }
        publish(player, "{\"notifications\":[{\"message\":\"m\",\"custom_data\":" + nested(1001) + "}]}")
                .statusCode(422).body(is("{\"detail\":[" + fault("JSON decode error, input exceeds the parser's limits",
                        "json_invalid", "body") + "]}"));
    }

    @Test
    void anIdSpelledLikeAPositionCursorCannotMakeAClientSkipNotifications() throws Exception {
        UUID player = UUID.randomUUID();
        Fixture.store(store, player, "before", 1);
        String cursor = page(poll(reader(player), "deadline=0").get()).cursor();
        assertThat(cursor).isEqualTo("pos-1");
        List<String> stored = new ArrayList<>(Fixture.store(store, player, "a", 2));

        publish(player, "{\"notifications\":[{\"message\":\"m\",\"notification_id\":\"" + cursor + "\"}]}")
                .statusCode(422).body(is("{\"detail\":[" + fault(RESERVED, "value_error", "body", "notifications", 0,
                        "notification_id") + "]}"));
        KAFKA.send(Topics.PLAYER_NOTIFICATIONS, player.toString(), "{\"player_uuid\":\"" + player
                + "\",\"message\":\"m\",\"notification_id\":\"" + cursor + "\"}");
        KAFKA.send(Topics.PLAYER_NOTIFICATIONS, player.toString(), "{\"player_uuid\":\"" + player
                + "\",\"message\":\"m\",\"notification_id\":\"after\"}");
        stored.add("after");

        NotificationPage page = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "max_page_size=100&deadline=0&exclude_before=" + cursor).get()), p -> p.notifications().size() >= 3);
        assertThat(ids(page)).containsExactlyElementsOf(stored);
    }

    @Test
    void kafkaRecordsTheStoreCannotKeepAreDeadLetteredWithTheSameWordsAndTheNextOneIsStored() {
        UUID player = UUID.randomUUID();
        String key = player.toString();
        String head = "{\"player_uuid\":\"" + player + "\",\"message\":\"m\"";
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put(head.replace("\"m\"", "\"a\\u0000b\"") + "}",
                "value.message: " + NUL + " [string_pattern_mismatch]");
        refused.put(head + ",\"etag\":\"e\\ud800\"}", "value.etag: " + NUL + " [string_pattern_mismatch]");
        refused.put(head + ",\"svc_url\":\"\\u0000\"}", "value.svc_url: " + NUL + " [string_pattern_mismatch]");
        refused.put(head + ",\"notification_id\":\"\\udfff\"}",
                "value.notification_id: " + NUL + " [string_pattern_mismatch]");
        refused.put(head + ",\"custom_data\":{\"k\\u0000\":1}}",
                "value.custom_data.k\uFFFD.[key]: " + NUL + " [string_pattern_mismatch]");
        refused.put(head + ",\"custom_data\":{\"a\":{\"b\":[\"ok\",\"\\u0000\"]}}}",
                "value.custom_data.a.b.1: " + NUL + " [string_pattern_mismatch]");
        refused.put(head + ",\"created\":\"+300000-01-01T00:00:00Z\"}", "value.created: " + DATETIME + " [datetime_parsing]");
        refused.put(head + ",\"created\":\"-0001-01-01T00:00:00Z\"}", "value.created: " + DATETIME + " [datetime_parsing]");
        refused.put(head + ",\"created\":\"yesterday\"}", "value.created: " + DATETIME + " [datetime_parsing]");
        refused.put(head + ",\"notification_id\":\"pos-1\"}", "value.notification_id: " + RESERVED + " [value_error]");
        refused.put(head + ",\"custom_data\":" + nested(129) + "}",
                String.join(".", Arrays.stream(deepLoc("value", "custom_data")).map(String::valueOf).toList())
                        + ": " + TOO_DEEP + " [value_error]");
        refused.put(head + ",\"custom_data\":" + nested(1001) + "}",
                "value: JSON decode error, input exceeds the parser's limits [json_invalid]");
        refused.put("{\"player_uuid\":\"" + player + "\\u0000\",\"message\":\"m\"}",
                "value.player_uuid: " + NUL + " [string_pattern_mismatch]");
        List<Map.Entry<String, String>> records = new ArrayList<>();
        refused.keySet().forEach(value -> records.add(Map.entry(key, value)));
        records.add(Map.entry(key, head + ",\"notification_id\":\"good\",\"created\":\"0001-01-01T00:00:00Z\","
                + "\"custom_data\":" + nested(128) + "}"));
        KAFKA.sendAll(Topics.PLAYER_NOTIFICATIONS, records);

        NotificationPage page = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()), p -> !p.notifications().isEmpty());
        assertThat(ids(page)).containsExactly("good");
        Map<String, String> reasons = new LinkedHashMap<>();
        KAFKA.read(Topics.deadLetter(Topics.PLAYER_NOTIFICATIONS), key, refused.size(), Duration.ofSeconds(30))
                .forEach(letter -> reasons.put(letter.value(), letter.headers().get(Topics.DLQ_REASON_HEADER)));
        assertThat(reasons).containsExactlyEntriesOf(refused);
    }

    /**
     * Bytes that are not well-formed UTF-8 — overlong forms ({@code C1 81} decoded as "A", {@code C0 80} as
     * U+0000), an encoded surrogate, a value beyond U+10FFFF — are refused whole, 422 at {@code ["body"]} over HTTP
     * and a dead letter at {@code value} from Kafka, never read as what a lenient decoder makes of them; what
     * follows still goes through.
     */
    @Test
    void documentsThatAreNotWellFormedUtf8AreRefusedOverHttpAndKafkaAndTheNextOneIsStored() {
        UUID player = UUID.randomUUID();
        String key = player.toString();
        int[][] malformed = { { 0xC1, 0x81 }, { 0xC0, 0x80 }, { 0xE0, 0x81, 0x81 }, { 0xED, 0xA0, 0x80 },
                { 0xF4, 0x90, 0x80, 0x80 } };
        for (int[] sequence : malformed) {
            publish(player, RawBytes.withRaw("{\"notifications\":[{\"message\":\"a@b\"}]}", "@", sequence))
                    .statusCode(422)
                    .body(is("{\"detail\":[" + fault("JSON decode error, invalid UTF-8", "json_invalid", "body") + "]}"));
            KAFKA.sendRaw(Topics.PLAYER_NOTIFICATIONS, key.getBytes(StandardCharsets.UTF_8),
                    RawBytes.withRaw("{\"player_uuid\":\"" + player + "\",\"message\":\"a@b\"}", "@", sequence));
        }
        publish(player, "{\"notifications\":[{\"message\":\"\u00e9\u20ac\ud83d\ude00\",\"notification_id\":\"over-http\"}]}")
                .statusCode(200);
        KAFKA.send(Topics.PLAYER_NOTIFICATIONS, key, "{\"player_uuid\":\"" + player + "\",\"message\":\"\u00e9\u20ac\ud83d\ude00\","
                + "\"notification_id\":\"from-kafka\"}");

        NotificationPage page = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()), p -> p.notifications().size() >= 2);
        assertThat(ids(page)).containsExactlyInAnyOrder("over-http", "from-kafka");
        assertThat(page.notifications().get(0).message()).isEqualTo("\u00e9\u20ac\ud83d\ude00");
        List<TestKafka.Received> letters = KAFKA.read(Topics.deadLetter(Topics.PLAYER_NOTIFICATIONS), key,
                malformed.length, Duration.ofSeconds(30));
        assertThat(letters).hasSize(malformed.length).allSatisfy(letter -> assertThat(letter.headers()
                .get(Topics.DLQ_REASON_HEADER)).isEqualTo("value: JSON decode error, invalid UTF-8 [json_invalid]"));
    }

    @Test
    void longPollRefusesANulInItsCursorAndAMalformedQueryString() throws IOException {
        UUID player = UUID.randomUUID();
        given().urlEncodingEnabled(false).header("Authorization", "Bearer " + reader(player))
                .when().get(Fixture.LP + "?deadline=0&exclude_before=a%00b").then().statusCode(422)
                .body(is("{\"detail\":[" + fault(NUL, "string_pattern_mismatch", "query", "exclude_before") + "]}"));
        for (String query : List.of("exclude_before=%zz", "exclude_before=%", "exclude_before=%0")) {
            try (Socket socket = new Socket("localhost", RestAssured.port)) {
                OutputStream out = socket.getOutputStream();
                out.write(("GET " + Fixture.LP + "?deadline=0&" + query + " HTTP/1.1\r\nHost: localhost\r\n"
                        + "Authorization: Bearer " + reader(player) + "\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(answer).startsWith("HTTP/1.1 422 ").endsWith("\r\n\r\n{\"detail\":["
                        + fault("Invalid query string: Malformed escape pair", "json_invalid", "query") + "]}");
            }
        }
    }

    /**
     * An escape that is well-formed but not UTF-8 is refused like a malformed escape pair: 422 at {@code ["query"]},
     * with a token or without one, never read with U+FFFD in its place; one that is UTF-8 is read.
     */
    @Test
    void longPollRefusesAQueryEscapeThatIsNotUtf8AndReadsOneThatIs() {
        UUID player = UUID.randomUUID();
        String refused = "\r\n\r\n{\"detail\":[" + fault("Invalid query string: not UTF-8", "json_invalid", "query") + "]}";
        for (String query : List.of("exclude_before=%FF", "exclude_before=a%C0%80", "exclude_before=%ED%A0%80",
                "exclude_before=%E2%82", "offset_reset_strategy=%FE")) {
            String target = Fixture.LP + "?deadline=0&" + query;
            assertThat(RawHttp.get(RestAssured.port, target, "Authorization: Bearer " + reader(player) + "\r\n"))
                    .as(query).startsWith("HTTP/1.1 422 ").endsWith(refused);
            assertThat(RawHttp.get(RestAssured.port, target, "")).as(query).startsWith("HTTP/1.1 422 ").endsWith(refused);
        }
        for (String query : List.of("exclude_before=%C3%A9", "exclude_before=%F0%9F%98%80+x")) {
            given().urlEncodingEnabled(false).header("Authorization", "Bearer " + reader(player))
                    .when().get(Fixture.LP + "?deadline=0&" + query).then().statusCode(200);
        }
    }

    /**
     * A publish body or Kafka record in UTF-16 or UTF-32 (which Jackson would detect and read) is not UTF-8 JSON
     * text: 422 over HTTP, a dead letter from Kafka, with the words of malformed UTF-8; what follows is stored.
     */
    @Test
    void documentsInUtf16OrUtf32AreRefusedOverHttpAndKafkaAndTheNextOneIsStored() {
        UUID player = UUID.randomUUID();
        String key = player.toString();
        List<String> charsets = List.of("UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE");
        for (String charset : charsets) {
            publish(player, ("{\"notifications\":[{\"message\":\"" + charset + "\",\"notification_id\":\"" + charset
                    + "\"}]}").getBytes(Charset.forName(charset))).statusCode(422)
                    .body(is("{\"detail\":[" + fault("JSON decode error, invalid UTF-8", "json_invalid", "body") + "]}"));
            KAFKA.sendRaw(Topics.PLAYER_NOTIFICATIONS, key.getBytes(StandardCharsets.UTF_8), ("{\"player_uuid\":\""
                    + player + "\",\"message\":\"" + charset + "\",\"notification_id\":\"" + charset + "\"}")
                    .getBytes(Charset.forName(charset)));
        }
        publish(player, "{\"notifications\":[{\"message\":\"m\",\"notification_id\":\"over-http\"}]}").statusCode(200);
        KAFKA.send(Topics.PLAYER_NOTIFICATIONS, key, "{\"player_uuid\":\"" + player + "\",\"message\":\"m\","
                + "\"notification_id\":\"from-kafka\"}");

        NotificationPage page = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()), p -> p.notifications().size() >= 2);
        assertThat(ids(page)).containsExactlyInAnyOrder("over-http", "from-kafka");
        assertThat(KAFKA.read(Topics.deadLetter(Topics.PLAYER_NOTIFICATIONS), key, charsets.size(), Duration.ofSeconds(30)))
                .hasSize(charsets.size()).allSatisfy(letter -> assertThat(letter.headers()
                        .get(Topics.DLQ_REASON_HEADER)).isEqualTo("value: JSON decode error, invalid UTF-8 [json_invalid]"));
    }
}
