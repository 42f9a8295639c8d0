package io.outpost.notification;

import static io.outpost.notification.Fixture.TOKENS;
import static io.outpost.notification.Fixture.ids;
import static io.outpost.notification.Fixture.page;
import static io.outpost.notification.Fixture.poll;
import static io.outpost.notification.Fixture.reader;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.outpost.model.Permissions;
import io.outpost.model.api.NotificationPage;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/** DESIGN §4 publish endpoint: to Kafka and back through ingest, with its validation and permissions. */
@QuarkusTest
class PublishTest {

    private static ValidatableResponse publish(UUID player, String token, String body) {
        return given().header("Authorization", "Bearer " + token).contentType("application/json").body(body)
                .when().post("/notification/v1/player/" + player + "/notification").then();
    }

    private static String writer(String permission, UUID player) {
        return player == null ? TOKENS.token().permissions(permission).sign()
                : TOKENS.token().permissions(permission).player(player).sign();
    }

    private static String entries(int count) {
        StringBuilder body = new StringBuilder("{\"notifications\":[");
        for (int i = 0; i < count; i++) {
            body.append(i == 0 ? "" : ",").append("{\"message\":\"m").append(i).append("\"}");
        }
        return body.append("]}").toString();
    }

    @Test
    void publishedNotificationsReachThePlayerInOrderWithTheAnsweredIds() throws Exception {
        UUID player = UUID.randomUUID();
        List<String> answered = publish(player, writer(Permissions.NOTIFICATION_PLAYER_WRITE, null),
                "{\"notifications\":[{\"message\":\"first\",\"custom_data\":{\"k\":[1,2]}},"
                        + "{\"message\":\"second\",\"notification_id\":\"mine\",\"svc_url\":\"/x\",\"etag\":\"v1\"}]}")
                .statusCode(200).body("notification_ids", hasSize(2)).extract().jsonPath().getList("notification_ids");
        assertThat(answered.get(1)).isEqualTo("mine");
        NotificationPage page = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()), p -> p.notifications().size() == 2);
        assertThat(ids(page)).isEqualTo(answered);
        assertThat(page.notifications().get(0).customData().json()).isEqualTo("{\"k\":[1,2]}");
    }

    @ParameterizedTest
    @ValueSource(ints = { 1, 100 })
    void acceptsABatchAtItsLimits(int count) {
        publish(UUID.randomUUID(), writer(Permissions.NOTIFICATION_PLAYER_ALL, null), entries(count))
                .statusCode(200).body("notification_ids", hasSize(count));
    }

    @Test
    void refusesAnEmptyOrOversizedBatch() {
        String token = writer(Permissions.NOTIFICATION_PLAYER_WRITE, null);
        publish(UUID.randomUUID(), token, entries(0)).statusCode(422).body(is("{\"detail\":[{\"loc\":[\"body\","
                + "\"notifications\"],\"msg\":\"List should have at least 1 item\",\"type\":\"too_short\"}]}"));
        publish(UUID.randomUUID(), token, entries(101)).statusCode(422).body(is("{\"detail\":[{\"loc\":[\"body\","
                + "\"notifications\"],\"msg\":\"List should have at most 100 items\",\"type\":\"too_long\"}]}"));
        for (String none : List.of("{}", "", "null")) {
            publish(UUID.randomUUID(), token, none).statusCode(422).body(is("{\"detail\":[{\"loc\":[\"body\","
                    + "\"notifications\"],\"msg\":\"Field required\",\"type\":\"missing\"}]}"));
        }
    }

    @Test
    void refusesEachFaultyEntryAtItsIndex() {
        publish(UUID.randomUUID(), writer(Permissions.NOTIFICATION_PLAYER_WRITE, null),
                "{\"notifications\":[{\"message\":\"fine\"},{\"svc_url\":\"\"},{\"message\":\"" + "x".repeat(4097) + "\"}]}")
                .statusCode(422).body(is("{\"detail\":["
                        + "{\"loc\":[\"body\",\"notifications\",1,\"message\"],\"msg\":\"Field required\",\"type\":\"missing\"},"
                        + "{\"loc\":[\"body\",\"notifications\",1,\"svc_url\"],\"msg\":\"String should have at least 1 character\","
                        + "\"type\":\"string_too_short\"},{\"loc\":[\"body\",\"notifications\",2,\"message\"],"
                        + "\"msg\":\"String should have at most 4096 characters\",\"type\":\"string_too_long\"}]}"));
    }

    @Test
    void refusesCustomDataThatIsNotAnObjectAndABadPath() {
        String token = writer(Permissions.NOTIFICATION_PLAYER_WRITE, null);
        publish(UUID.randomUUID(), token, "{\"notifications\":[{\"message\":\"m\",\"custom_data\":\"text\"}]}")
                .statusCode(422).body("detail[0].loc", is(List.of("body", "notifications", 0, "custom_data")))
                .body("detail[0].type", is("json_invalid"));
        given().header("Authorization", "Bearer " + token).contentType("application/json").body(entries(1))
                .when().post("/notification/v1/player/not-a-uuid/notification").then().statusCode(422)
                .body(is("{\"detail\":[{\"loc\":[\"path\",\"player_uuid\"],\"msg\":\"Input should be a valid UUID\","
                        + "\"type\":\"uuid_parsing\"}]}"));
    }

    /** RFC 9110 §15.5.6: the player's notifications path's 405 says what it takes (the page and create); OPTIONS too. */
    @ParameterizedTest
    @ValueSource(strings = { "PUT", "DELETE", "PATCH" })
    void otherMethodsOfThePublishPathAre405WithItsAllow(String method) {
        String path = "/notification/v1/player/" + UUID.randomUUID() + "/notification";
        given().header("Authorization", "Bearer " + writer(Permissions.NOTIFICATION_PLAYER_WRITE, null))
                .when().request(method, path).then().statusCode(405).header("Allow", "GET, HEAD, POST, OPTIONS")
                .body(is("{\"error_code\":\"method_not_allowed\",\"desc\":\"Method Not Allowed\"}"));
        given().when().options(path).then().statusCode(200).header("Allow", "GET, HEAD, POST, OPTIONS");
    }

    /** A number or a boolean is not text: Jackson's defaults would have published {@code 123} as "123". */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = { "message|123", "message|true", "message|1e999999", "svc_url|1.5",
            "etag|false", "notification_id|7" })
    void refusesAScalarThatIsNotAStringAndPublishesNothingOfTheBody(String field, String value) {
        UUID player = UUID.randomUUID();
        String token = writer(Permissions.NOTIFICATION_PLAYER_WRITE, null);
        String entry = field.equals("message") ? "{\"message\":" + value + "}"
                : "{\"message\":\"m\",\"" + field + "\":" + value + "}";
        publish(player, token, "{\"notifications\":[{\"message\":\"first\"}," + entry + "]}").statusCode(422)
                .body(is("{\"detail\":[{\"loc\":[\"body\",\"notifications\",1,\"" + field + "\"],"
                        + "\"msg\":\"Input should be a valid string\",\"type\":\"json_invalid\"}]}"));
        publish(player, token, "{\"notifications\":[{\"message\":\"after\"}]}").statusCode(200);
        NotificationPage page = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()), p -> !p.notifications().isEmpty());
        assertThat(page.notifications()).extracting(n -> n.message()).containsExactly("after");
    }

    /** DESIGN §5, one entry per faulty input: every wrongly typed value, beside the entries' other faults. */
    @Test
    void reportsEveryValueOfTheWrongTypeWithTheOtherFaultsInEntryOrder() {
        UUID player = UUID.randomUUID();
        String token = writer(Permissions.NOTIFICATION_PLAYER_WRITE, null);
        String datetime = "Input should be a valid datetime from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z";
        publish(player, token, "{\"notifications\":["
                + "{\"message\":123,\"svc_url\":\"\",\"etag\":true},"
                + "{\"message\":\"fine\"},"
                + "{\"message\":\"ok\",\"created\":5,\"custom_data\":[1],\"notification_id\":false},"
                + "\"text\","
                + "{\"svc_url\":\"/x\"}]}")
                .statusCode(422).body(is("{\"detail\":["
                        + fault("[\"body\",\"notifications\",0,\"message\"]", "Input should be a valid string", "json_invalid")
                        + "," + fault("[\"body\",\"notifications\",0,\"etag\"]", "Input should be a valid string", "json_invalid")
                        + "," + fault("[\"body\",\"notifications\",0,\"svc_url\"]", "String should have at least 1 character",
                                "string_too_short")
                        + "," + fault("[\"body\",\"notifications\",2,\"created\"]", datetime, "datetime_parsing")
                        + "," + fault("[\"body\",\"notifications\",2,\"custom_data\"]", "Input should be a valid dictionary",
                                "json_invalid")
                        + "," + fault("[\"body\",\"notifications\",2,\"notification_id\"]", "Input should be a valid string",
                                "json_invalid")
                        + "," + fault("[\"body\",\"notifications\",3]", "Input should be a valid dictionary", "json_invalid")
                        + "," + fault("[\"body\",\"notifications\",4,\"message\"]", "Field required", "missing")
                        + "]}"));
        publish(player, token, "{\"notifications\":\"all\"}").statusCode(422).body(is("{\"detail\":["
                + fault("[\"body\",\"notifications\"]", "Input should be a valid list", "json_invalid") + "]}"));
        publish(player, token, "{\"notifications\":[{\"message\":\"after\"}]}").statusCode(200);
        NotificationPage page = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()), p -> !p.notifications().isEmpty());
        assertThat(page.notifications()).extracting(n -> n.message()).containsExactly("after");
    }

    /** A body is one JSON value: what follows it is not ignored, and nothing of the body is published. */
    @ParameterizedTest
    @ValueSource(strings = { " {}", "{\"notifications\":[{\"message\":\"second\"}]}", " x", " [" })
    void aBodyWithMoreAfterItsValueIsRefusedAndPublishesNothing(String more) {
        UUID player = UUID.randomUUID();
        String token = writer(Permissions.NOTIFICATION_PLAYER_WRITE, null);
        publish(player, token, "{\"notifications\":[{\"message\":\"first\"}]}" + more).statusCode(422)
                .body(is("{\"detail\":[" + fault("[\"body\"]", "JSON decode error", "json_invalid") + "]}"));
        publish(player, token, "{\"notifications\":[{\"message\":\"after\"}]}").statusCode(200);
        NotificationPage page = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()), p -> !p.notifications().isEmpty());
        assertThat(page.notifications()).extracting(n -> n.message()).containsExactly("after");
    }

    /** A body that is JSON but not an object (the batch's list itself, a text, a number) is named so. */
    @ParameterizedTest
    @ValueSource(strings = { "[{\"message\":\"first\"}]", "\"first\"", "1e999999", "[]" })
    void aBodyThatIsNotAnObjectIsRefusedAsSuchAndPublishesNothing(String body) {
        UUID player = UUID.randomUUID();
        String token = writer(Permissions.NOTIFICATION_PLAYER_WRITE, null);
        publish(player, token, body).statusCode(422)
                .body(is("{\"detail\":[" + fault("[\"body\"]", "Input should be a valid dictionary", "json_invalid") + "]}"));
        publish(player, token, "{\"notifications\":[{\"message\":\"after\"}]}").statusCode(200);
        NotificationPage page = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()), p -> !p.notifications().isEmpty());
        assertThat(page.notifications()).extracting(n -> n.message()).containsExactly("after");
    }

    /** As pydantic: a list over its limit is refused as such, whatever its entries hold. */
    @ParameterizedTest
    @ValueSource(strings = { "{\"message\":1}", "{}", "7" })
    void aBatchTooLongIsOneFaultWhateverItsEntries(String entry) {
        String body = "{\"notifications\":[" + String.join(",", Collections.nCopies(5_000, entry)) + "]}";
        publish(UUID.randomUUID(), writer(Permissions.NOTIFICATION_PLAYER_WRITE, null), body).statusCode(422)
                .body(is("{\"detail\":[" + fault("[\"body\",\"notifications\"]", "List should have at most 100 items",
                        "too_long") + "]}"));
    }

    /**
     * A notification has one {@code created}: the held poll answered from memory at ingest and a later read from
     * the store say the same instant (PostgreSQL keeps microseconds; finer digits are dropped when read).
     */
    @Test
    void createdIsTheSameWhetherAnsweredFromMemoryOrFromTheStore() throws Exception {
        UUID player = UUID.randomUUID();
        var held = poll(reader(player), "offset_reset_strategy=earliest&deadline=60");
        publish(player, writer(Permissions.NOTIFICATION_PLAYER_WRITE, null),
                "{\"notifications\":[{\"message\":\"nanos\",\"created\":\"2020-01-01T00:00:00.1234567Z\"}]}")
                .statusCode(200);
        NotificationPage fromMemory = page(held.get(30, TimeUnit.SECONDS));
        NotificationPage fromStore = page(poll(reader(player), "offset_reset_strategy=earliest&deadline=0").get());
        assertThat(fromMemory.notifications().get(0).created()).isEqualTo(Instant.parse("2020-01-01T00:00:00.123456Z"));
        assertThat(fromMemory.notifications()).isEqualTo(fromStore.notifications());
    }

    /**
     * A body is read whole into memory, so its size is bounded: 1 MiB holds the largest notification a publish may
     * carry (1,000,000 bytes as JSON; the 1 MiB body here is read, and that entry refused for its size), one byte
     * more is refused by the HTTP decoder before any code runs (413, no body).
     */
    @Test
    void aBodyOfOneMebibyteIsReadAndOneByteMoreIsRefused413() {
        String token = writer(Permissions.NOTIFICATION_PLAYER_WRITE, null);
        String head = "{\"notifications\":[{\"message\":\"m\",\"custom_data\":{\"k\":\"";
        // custom_data within its own bound (1,000,000 bytes), the entry past the record's; spaces fill the body
        String filled = head + "x".repeat(999_990) + "\"}";
        String atLimit = filled + " ".repeat(1024 * 1024 - filled.length() - 3) + "}]}";
        assertThat(atLimit).hasSize(1024 * 1024);
        publish(UUID.randomUUID(), token, atLimit).statusCode(422)
                .body("detail", hasSize(1)).body("detail[0].type", is("value_error"))
                .body("detail[0].loc", contains("body", "notifications", 0));
        publish(UUID.randomUUID(), token, head + "x" + atLimit.substring(head.length())).statusCode(413);
    }

    /**
     * Bodies of many tiny values cost the service many times their size to read (an audit ran a replica out of
     * heap with three 9 MB ones, and stalled its event loop for seconds). Three read at once, each with a fault in
     * every entry: each is answered in full (or 503 when the read budget stays full past the publish timeout),
     * none 500, and meanwhile a held poll is answered for a notification published beside them.
     */
    @Test
    void manyBodiesOfTinyValuesAtOnceAreAnsweredAndHeldPollsStillAnswer() throws Exception {
        String token = writer(Permissions.NOTIFICATION_PLAYER_WRITE, null);
        StringBuilder data = new StringBuilder("{");
        for (int k = 0; k < 2000; k++) {
            data.append(k == 0 ? "" : ",").append("\"k").append(k).append("\":[{\"x\":[1,2,{\"y\":\"zzzzzzzzzz\"}]}]");
        }
        data.append('}');
        StringBuilder body = new StringBuilder("{\"notifications\":[");
        for (int i = 0; i < 12; i++) {
            body.append(i == 0 ? "" : ",").append("{\"message\":").append(i == 11 ? "5" : "\"m\",\"etag\":\"\"")
                    .append(",\"custom_data\":").append(data).append('}');
        }
        String heavy = body.append("]}").toString();
        assertThat(heavy.length()).isBetween(900_000, 1024 * 1024);

        UUID player = UUID.randomUUID();
        var held = poll(reader(player), "offset_reset_strategy=earliest&deadline=60");
        var heavies = IntStream.range(0, 3).mapToObj(i -> CompletableFuture
                .supplyAsync(() -> publish(UUID.randomUUID(), token, heavy).extract().response())).toList();
        publish(player, token, "{\"notifications\":[{\"message\":\"beside\"}]}").statusCode(200);
        NotificationPage page = page(held.get(30, TimeUnit.SECONDS));
        assertThat(page.notifications()).extracting(n -> n.message()).containsExactly("beside");
        for (var answer : heavies) {
            var response = answer.get(120, TimeUnit.SECONDS);
            assertThat(response.statusCode()).as(response.asString()).isIn(422, 503);
            if (response.statusCode() == 422) {
                assertThat(response.jsonPath().getList("detail.type")).hasSize(12)
                        .containsOnly("string_too_short", "json_invalid");
            } else {
                assertThat(response.jsonPath().getString("error_code")).isEqualTo("publish_unavailable");
            }
        }
    }

    private static String fault(String loc, String msg, String type) {
        return "{\"loc\":" + loc + ",\"msg\":\"" + msg + "\",\"type\":\"" + type + "\"}";
    }

    @Test
    void selfPermissionsPublishOnlyToTheTokensOwnPlayer() {
        UUID me = UUID.randomUUID();
        for (String self : List.of(Permissions.NOTIFICATION_PLAYER_SELF_WRITE, Permissions.NOTIFICATION_PLAYER_SELF_ALL)) {
            publish(me, writer(self, me), entries(1)).statusCode(200);
            publish(UUID.randomUUID(), writer(self, me), entries(1)).statusCode(403)
                    .body("error_code", is("insufficient_permissions")).body("auth_success", is(false));
            publish(me, writer(self, null), entries(1)).statusCode(403).body("error_code", is("insufficient_permissions"));
        }
    }

    @Test
    void readPermissionsCannotPublish() {
        UUID me = UUID.randomUUID();
        publish(me, writer(Permissions.NOTIFICATION_PLAYER_READ, me), entries(1)).statusCode(403)
                .body("error_code", is("insufficient_permissions"));
        given().contentType("application/json").body(entries(1)).when()
                .post("/notification/v1/player/" + me + "/notification").then().statusCode(403)
                .body("error_code", is("auth_malformed_access"));
    }
}
