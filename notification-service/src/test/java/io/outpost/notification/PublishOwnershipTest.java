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

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.outpost.model.Permissions;
import io.outpost.model.Topics;
import io.outpost.model.api.NotificationPage;
import io.outpost.testsupport.TestKafka;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/**
 * Who may write to which player, as in the vendor's API: any player with {@code notification:player:write} (or
 * {@code notification:player:*}), one's own player — by its uuid or as {@code me} — with {@code …:self:write} or
 * {@code …:self:*}. A {@code notification_id} repeated for a player is the same notification only with the same
 * content; with other content it is refused — 409 over HTTP, a dead letter on Kafka — never silently dropped.
 */
@QuarkusTest
class PublishOwnershipTest {

    private static final String CONFLICT = "{\"error_code\":\"notification_id_conflict\",\"desc\":\"notification_id %s "
            + "is already used for this player with other content; a notification sent again must be the same, a new "
            + "one needs a new id\"}";
    private static TestKafka kafka;

    @BeforeAll
    static void kafka() {
        kafka = new TestKafka();
    }

    @AfterAll
    static void close() {
        kafka.close();
    }

    private static ValidatableResponse publish(String player, String token, String body) {
        return given().header("Authorization", "Bearer " + token).contentType("application/json").body(body)
                .when().post("/notification/v1/player/" + player + "/notification").then();
    }

    private static String one(String message) {
        return "{\"notifications\":[{\"message\":\"" + message + "\"}]}";
    }

    private static String withId(String id, String message, String customData) {
        return "{\"notifications\":[{\"notification_id\":\"" + id + "\",\"message\":\"" + message + "\""
                + (customData == null ? "" : ",\"custom_data\":" + customData) + "}]}";
    }

    @ParameterizedTest
    @ValueSource(strings = { Permissions.NOTIFICATION_PLAYER_SELF_ALL, Permissions.NOTIFICATION_PLAYER_SELF_WRITE })
    void aGameClientWritesToItsOwnPlayerAsMeOrByUuidAndToNoOtherPlayer(String permission) {
        UUID own = UUID.randomUUID();
        String token = TOKENS.token().permissions(permission).player(own).sign();
        publish("me", token, one("to me")).statusCode(200);
        publish(own.toString(), token, one("to my uuid")).statusCode(200);
        publish(UUID.randomUUID().toString(), token, one("to another")).statusCode(403)
                .body("auth_success", is(false)).body("error_code", is("insufficient_permissions"));
        NotificationPage page = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(own),
                "offset_reset_strategy=earliest&deadline=0").get()), p -> p.notifications().size() == 2);
        assertThat(page.notifications()).extracting(n -> n.message()).containsExactly("to me", "to my uuid");
    }

    @ParameterizedTest
    @ValueSource(strings = { Permissions.NOTIFICATION_PLAYER_ALL, Permissions.NOTIFICATION_PLAYER_WRITE })
    void aBackendWritesToAnyPlayer(String permission) {
        String backend = TOKENS.token().permissions(permission).sign();
        publish(UUID.randomUUID().toString(), backend, one("to anyone")).statusCode(200);
        // "me" is the token's own player: a backend token has none
        publish("me", backend, one("to me")).statusCode(403).body("error_code", is("invalid_token_claims"));
    }

    @Test
    void readingOwnNotificationsGrantsNoWriting() {
        UUID own = UUID.randomUUID();
        String token = TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_SELF_READ,
                Permissions.NOTIFICATION_PLAYER_READ).player(own).sign();
        publish("me", token, one("m")).statusCode(403).body("error_code", is("insufficient_permissions"));
    }

    @Test
    void anIdRepeatedWithTheSameContentIsStoredOnceAndWithOtherContentIs409() throws Exception {
        UUID player = UUID.randomUUID();
        String token = TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_SELF_ALL).player(player).sign();
        String id = "reward-" + UUID.randomUUID();
        publish("me", token, withId(id, "You won", "{\"gold\":10}")).statusCode(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()).notifications().size() == 1);
        // the same again (custom_data the same JSON, written otherwise): idempotent
        publish("me", token, withId(id, "You won", "{ \"gold\" : 10.0 }")).statusCode(200)
                .body("notification_ids", is(List.of(id)));
        publish("me", token, withId(id, "Click here", "{\"gold\":10}")).statusCode(409)
                .body(is(String.format(CONFLICT, id)));
        publish("me", token, withId(id, "You won", "{\"gold\":11}")).statusCode(409);
        publish("me", token, withId(id, "You won", null)).statusCode(409);
        // twice in one body with other content
        String twice = "twice-" + UUID.randomUUID();
        publish("me", token, "{\"notifications\":[{\"notification_id\":\"" + twice + "\",\"message\":\"a\"},"
                + "{\"notification_id\":\"" + twice + "\",\"message\":\"b\"}]}").statusCode(409)
                .body(is(String.format(CONFLICT, twice)));
        publish("me", token, one("after")).statusCode(200);
        NotificationPage page = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()), p -> p.notifications().size() >= 2);
        assertThat(page.notifications()).extracting(n -> n.message()).containsExactly("You won", "after");
    }

    @Test
    void aKafkaRecordRepeatingAnIdWithOtherContentIsDeadLetteredAndTheNextOneStored() throws Exception {
        UUID player = UUID.randomUUID();
        String key = player.toString();
        String id = "kafka-" + UUID.randomUUID();
        kafka.send(Topics.PLAYER_NOTIFICATIONS, key, record(player, id, "original"));
        await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()).notifications().size() == 1);
        kafka.send(Topics.PLAYER_NOTIFICATIONS, key, record(player, id, "original")); // re-sent: stored once
        String forged = record(player, id, "forged");
        kafka.send(Topics.PLAYER_NOTIFICATIONS, key, forged);
        // in one batch: the first occurrence is stored, the second, with other content, refused
        String inBatch = "batch-" + UUID.randomUUID();
        kafka.sendAll(Topics.PLAYER_NOTIFICATIONS, List.of(java.util.Map.entry(key, record(player, inBatch, "one")),
                java.util.Map.entry(key, record(player, inBatch, "two")),
                java.util.Map.entry(key, record(player, "next-" + UUID.randomUUID(), "next"))));

        NotificationPage page = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()), p -> p.notifications().size() >= 3);
        assertThat(page.notifications()).extracting(n -> n.message()).containsExactly("original", "one", "next");
        List<TestKafka.Received> letters = kafka.read(Topics.deadLetter(Topics.PLAYER_NOTIFICATIONS), key, 2,
                Duration.ofSeconds(30));
        assertThat(letters).extracting(TestKafka.Received::value).containsExactly(forged,
                record(player, inBatch, "two"));
        assertThat(letters).allSatisfy(letter -> assertThat(letter.headers().get(Topics.DLQ_REASON_HEADER))
                .startsWith("value: the store refused it: notification_id_conflict: notification_id ")
                .endsWith(" of player " + player + " is already stored with other content (SQLSTATE 23505) "
                        + "[store_refused]"));
        assertThat(ids(page).get(0)).isEqualTo(id);
    }

    private static String record(UUID player, String id, String message) {
        return "{\"player_uuid\":\"" + player + "\",\"notification_id\":\"" + id + "\",\"message\":\"" + message + "\"}";
    }
}
