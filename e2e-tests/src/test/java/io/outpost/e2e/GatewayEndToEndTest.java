package io.outpost.e2e;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

import io.outpost.model.Permissions;
import io.outpost.model.RawJsonObject;
import io.outpost.model.Topics;
import io.outpost.model.event.ConfigTransactionEvent;
import io.outpost.model.event.NotificationEvent;
import io.outpost.testsupport.TestKafka;
import io.outpost.testsupport.TestTokens;
import io.restassured.path.json.JsonPath;

/** A game client and a backend producer, through the gateway, against the three packaged services. */
class GatewayEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    private static String base;
    private static TestKafka kafka;

    @BeforeAll
    static void start() {
        base = E2eStack.get().gatewayUrl();
        kafka = new TestKafka();
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    private static String token(String client, String secret) {
        return given().auth().preemptive().basic(client, secret).contentType("application/json")
                .body("{\"grant_type\":\"client_credentials\"}")
                .when().post(base + "/users/v2/oauth/token")
                .then().statusCode(200).body("token_type", is("bearer"))
                .extract().path("access_token");
    }

    private static JsonPath poll(String token, String query) {
        return given().header("Authorization", "Bearer " + token)
                .when().get(base + "/notification/v1/player/me/stream/notification/lp?" + query)
                .then().statusCode(200).extract().jsonPath();
    }

    @Test
    void heldLongPollReceivesANotificationPublishedToKafka() throws Exception {
        String token = token(E2eStack.GAME_CLIENT, E2eStack.GAME_SECRET);
        String cursor = poll(token, "deadline=0").getString("cursor");
        CompletableFuture<JsonPath> held = CompletableFuture.supplyAsync(
                () -> poll(token, "deadline=60&exclude_before=" + cursor));
        String player = E2eStack.PLAYER.toString();
        String message = "e2e " + UUID.randomUUID();
        await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> true);
        kafka.send(Topics.PLAYER_NOTIFICATIONS, player, JSON.writeValueAsString(
                new NotificationEvent(player, message, null, new RawJsonObject("{\"source\":\"e2e\"}"), null, null, null)));

        JsonPath page = held.get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(page.getList("notifications.message")).containsExactly(message);
        assertThat(page.getString("notifications[0].custom_data.source")).isEqualTo("e2e");
        assertThat(page.getString("cursor")).isNotEqualTo(cursor);
        assertThat(poll(token, "deadline=0&exclude_before=" + page.getString("cursor")).getList("notifications"))
                .isEmpty();
    }

    @Test
    void historyListingsPageThroughTransactionsPublishedToKafka() throws Exception {
        String sandbox = UUID.randomUUID().toString();
        List<Map.Entry<String, String>> records = new ArrayList<>();
        for (int i = 0; i < 23; i++) {
            records.add(Map.entry(sandbox, JSON.writeValueAsString(transaction(sandbox, ConfigTransactionEvent.ROLE, i))));
        }
        for (int i = 0; i < 4; i++) {
            records.add(Map.entry(sandbox, JSON.writeValueAsString(
                    transaction(sandbox, ConfigTransactionEvent.MATCH_MAKING_PROFILE_LIST, i))));
        }
        kafka.sendAll(Topics.SANDBOX_CONFIG_TRANSACTIONS, records);
        String token = token(E2eStack.CONSOLE_CLIENT, E2eStack.CONSOLE_SECRET);
        String roles = base + "/v1/history/sandbox/" + sandbox + "/role";
        await().atMost(Duration.ofSeconds(30)).until(() -> given().header("Authorization", "Bearer " + token)
                .when().get(roles + "?page_size=1").then().extract().jsonPath().getInt("page_meta.total") == 23);

        assertThat(pageThrough(token, roles, 10)).hasSize(23);
        String lists = base + "/v1/history/sandbox/" + sandbox + "/match-making-profile-list";
        assertThat(pageThrough(token, lists, 3)).hasSize(4);
    }

    private static Set<String> pageThrough(String token, String url, int pageSize) {
        Set<String> seen = new HashSet<>();
        String cursor = "0";
        for (int pages = 0; cursor != null && pages < 100; pages++) {
            JsonPath page = given().header("Authorization", "Bearer " + token)
                    .when().get(url + "?page_size=" + pageSize + "&cursor=" + cursor)
                    .then().statusCode(200).extract().jsonPath();
            for (String id : page.<String>getList("transactions.transaction_id")) {
                assertThat(seen.add(id)).as("transaction %s seen once", id).isTrue();
            }
            cursor = page.getString("page_meta.cursor");
        }
        return seen;
    }

    private static ConfigTransactionEvent transaction(String sandbox, String type, int n) {
        return new ConfigTransactionEvent(UUID.randomUUID().toString(), sandbox, type, UUID.randomUUID().toString(),
                type.equals(ConfigTransactionEvent.ROLE) ? (long) n : null, "e2e-admin", Instant.now(), "create",
                "v" + n, null, JSON.createObjectNode().put("name", "item " + n));
    }

    @Test
    void tokensNotIssuedByAuthServiceAreRefusedByBothServices() {
        String foreign = TestTokens.shared().token().permissions(Permissions.NOTIFICATION_PLAYER_ALL,
                Permissions.SANDBOX_CONFIG_EDIT).player(E2eStack.PLAYER).sign();
        String realKid = new String(java.util.Base64.getUrlDecoder().decode(
                token(E2eStack.GAME_CLIENT, E2eStack.GAME_SECRET).split("\\.")[0])).replaceAll(".*\"kid\":\"([^\"]+)\".*", "$1");
        String forged = TestTokens.shared().token().keyId(realKid).untrustedKey()
                .permissions(Permissions.NOTIFICATION_PLAYER_ALL, Permissions.SANDBOX_CONFIG_EDIT)
                .player(E2eStack.PLAYER).sign();
        String pollUrl = base + "/notification/v1/player/me/stream/notification/lp?deadline=0";
        String historyUrl = base + "/v1/history/sandbox/" + UUID.randomUUID() + "/role";
        for (String url : List.of(pollUrl, historyUrl)) {
            given().header("Authorization", "Bearer " + foreign).when().get(url)
                    .then().statusCode(403).body("auth_success", is(false)).body("error_code", is("auth_invalid_key_id"));
            given().header("Authorization", "Bearer " + forged).when().get(url)
                    .then().statusCode(403).body("auth_success", is(false)).body("error_code", is("auth_token_sig_invalid"));
        }
    }
}
