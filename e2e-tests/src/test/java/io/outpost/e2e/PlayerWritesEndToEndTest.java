package io.outpost.e2e;

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

import io.outpost.model.Topics;
import io.outpost.testsupport.TestKafka;
import io.restassured.path.json.JsonPath;
import io.restassured.response.ValidatableResponse;

/**
 * Issue 37, through the gateway: a game client (bound to its player, {@code notification:player:self:*}, as the
 * demo client and the docs make one) writes to its own player only — as {@code me} or by its uuid — so it can
 * neither push a notification with its own {@code svc_url} to another player nor take another player's
 * {@code notification_id} first. A {@code notification_id} the player already has with other content is refused,
 * 409 over HTTP and a dead letter on Kafka, never silently dropped.
 */
class PlayerWritesEndToEndTest {

    /** Players of E2eStack no other test uses. */
    private static final int VICTIM = 16;
    private static final int PRODUCED = 17;
    private static String gateway;
    private static TestKafka kafka;

    @BeforeAll
    static void start() {
        gateway = E2eStack.get().gatewayUrl();
        kafka = new TestKafka();
    }

    @AfterAll
    static void close() {
        kafka.close();
    }

    @Test
    void aGameClientWritesToItsOwnPlayerOnlyAndAReusedIdWithOtherContentIsRefused() {
        String game = token(E2eStack.GAME_CLIENT, E2eStack.GAME_SECRET);
        UUID victim = E2eStack.PLAYERS.get(VICTIM);
        String id = "reward-" + UUID.randomUUID();
        String phishing = "{\"notifications\":[{\"notification_id\":\"" + id + "\",\"message\":\"Claim your reward\","
                + "\"svc_url\":\"https://evil.example/claim\"}]}";
        publish(victim.toString(), game, phishing).statusCode(403).body("auth_success", is(false))
                .body("error_code", is("insufficient_permissions"));

        // the backend's real notification with that id reaches the victim
        String backend = token(E2eStack.PUBLISHER_CLIENT, E2eStack.PUBLISHER_SECRET);
        String real = "{\"notifications\":[{\"notification_id\":\"" + id + "\",\"message\":\"Your reward\"}]}";
        publish(victim.toString(), backend, real).statusCode(200);
        String victimToken = token(E2eStack.playerClient(VICTIM), E2eStack.PLAYER_SECRET);
        await().atMost(Duration.ofSeconds(30)).until(() -> messages(victimToken, id).contains("Your reward"));
        publish(victim.toString(), backend, real).statusCode(200); // sent again: the same notification
        publish(victim.toString(), backend, phishing).statusCode(409).body("error_code", is("notification_id_conflict"));

        // a game client's own player, as "me"
        String mine = "mine-" + UUID.randomUUID();
        publish("me", game, "{\"notifications\":[{\"notification_id\":\"" + mine + "\",\"message\":\"to me\"}]}")
                .statusCode(200).body("notification_ids", is(List.of(mine)));
        await().atMost(Duration.ofSeconds(30)).until(() -> messages(game, mine).contains("to me"));
        publish("me", game, "{\"notifications\":[{\"notification_id\":\"" + mine + "\",\"message\":\"other\"}]}")
                .statusCode(409).body("error_code", is("notification_id_conflict"));
    }

    @Test
    void aKafkaRecordReusingAnIdWithOtherContentIsDeadLetteredWithTheReason() {
        UUID player = E2eStack.PLAYERS.get(PRODUCED);
        String id = "kafka-" + UUID.randomUUID();
        String original = record(player, id, "original");
        String forged = record(player, id, "forged");
        kafka.send(Topics.PLAYER_NOTIFICATIONS, player.toString(), original);
        kafka.send(Topics.PLAYER_NOTIFICATIONS, player.toString(), forged);
        String next = "next-" + UUID.randomUUID();
        kafka.send(Topics.PLAYER_NOTIFICATIONS, player.toString(), record(player, next, "next"));

        String reader = token(E2eStack.playerClient(PRODUCED), E2eStack.PLAYER_SECRET);
        await().atMost(Duration.ofSeconds(30)).until(() -> messages(reader, next).contains("next"));
        assertThat(messages(reader, id)).containsExactly("original");
        List<TestKafka.Received> letters = kafka.read(Topics.deadLetter(Topics.PLAYER_NOTIFICATIONS),
                player.toString(), 1, Duration.ofSeconds(30));
        assertThat(letters).singleElement().satisfies(letter -> {
            assertThat(letter.value()).isEqualTo(forged);
            assertThat(letter.headers().get(Topics.DLQ_REASON_HEADER)).contains("notification_id_conflict")
                    .endsWith("[store_refused]");
        });
    }

    private static String record(UUID player, String id, String message) {
        return "{\"player_uuid\":\"" + player + "\",\"notification_id\":\"" + id + "\",\"message\":\"" + message + "\"}";
    }

    /** The messages of the player's stored notifications with id {@code id}, read from the earliest. */
    private static List<String> messages(String token, String id) {
        JsonPath page = given().header("Authorization", "Bearer " + token)
                .get(gateway + Client.POLL + "?offset_reset_strategy=earliest&deadline=0&max_page_size=100")
                .then().statusCode(200).extract().jsonPath();
        return page.getList("notifications.findAll { it.notification_id == '" + id + "' }.message", String.class);
    }

    private static ValidatableResponse publish(String player, String token, String body) {
        return given().header("Authorization", "Bearer " + token).contentType("application/json").body(body)
                .post(gateway + "/notification/v1/player/" + player + "/notification").then();
    }

    private static String token(String client, String secret) {
        return given().auth().preemptive().basic(client, secret).contentType("application/json")
                .body("{\"grant_type\":\"client_credentials\"}").post(gateway + "/users/v2/oauth/token")
                .then().statusCode(200).extract().path("access_token");
    }
}
