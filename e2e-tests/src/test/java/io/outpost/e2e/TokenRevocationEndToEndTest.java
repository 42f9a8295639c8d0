package io.outpost.e2e;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.restassured.response.Response;

/**
 * Revocation reaches every service within 2 s (issue 12): a game client polls notifications and reads history
 * through the gateway; an administrator disables it; the poll it holds is answered, and its next polls and its
 * history reads are refused, with 403 {@code auth_token_unknown} — the token itself is still unexpired and
 * correctly signed.
 */
class TokenRevocationEndToEndTest {

    private static final Duration WITHIN = Duration.ofSeconds(2);
    private static String gateway;
    private static String auth;

    @BeforeAll
    static void start() {
        gateway = E2eStack.get().gatewayUrl();
        auth = E2eStack.get().service("auth-service").url();
    }

    @Test
    void disablingAClientRefusesItsNextPollAndItsHistoryReadsOnEveryServiceWithinTwoSeconds() throws Exception {
        String token = token(E2eStack.DOOMED_CLIENT, E2eStack.DOOMED_SECRET);
        String history = gateway + "/v1/history/sandbox/" + UUID.randomUUID() + "/role";
        assertThat(poll(token, "deadline=0").statusCode()).isEqualTo(200);
        assertThat(read(token, history).statusCode()).isEqualTo(200);
        CompletableFuture<Response> held = CompletableFuture.supplyAsync(() -> poll(token, "deadline=60"));
        await().atMost(Duration.ofSeconds(10)).until(() -> heldPolls() >= 1);

        String admin = token(E2eStack.ADMIN_CLIENT, E2eStack.ADMIN_SECRET);
        given().auth().oauth2(admin).post("http://127.0.0.1:" + E2eStack.ADMIN_PORT + "/users/v1/admin/clients/" + E2eStack.DOOMED_CLIENT + "/disable")
                .then().statusCode(200).body("enabled", is(false));

        await().atMost(WITHIN).pollInterval(Duration.ofMillis(50))
                .until(() -> poll(token, "deadline=0").statusCode() == 403 && read(token, history).statusCode() == 403);
        for (Response refused : new Response[] { poll(token, "deadline=0"), read(token, history) }) {
            refused.then().statusCode(403).body("auth_success", is(false)).body("error_code", is("auth_token_unknown"));
        }
        // the poll held when the client was disabled ends with the same refusal, within the same bound
        held.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS).then().statusCode(403).body("auth_success", is(false))
                .body("error_code", is("auth_token_unknown"));
        // a disabled client gets no new token
        given().auth().preemptive().basic(E2eStack.DOOMED_CLIENT, E2eStack.DOOMED_SECRET).contentType("application/json")
                .body("{\"grant_type\":\"client_credentials\"}").post(gateway + "/users/v2/oauth/token")
                .then().statusCode(401);
    }

    /** Long polls notification-service holds now (its gauge). */
    private static double heldPolls() {
        String metrics = given().get(E2eStack.get().service("notification-service").url() + "/q/metrics").asString();
        java.util.regex.Matcher held = java.util.regex.Pattern.compile("(?m)^outpost_notification_polls_held(?:\\{[^}]*\\})? ([0-9.E]+)")
                .matcher(metrics);
        return held.find() ? Double.parseDouble(held.group(1)) : 0;
    }

    private static String token(String client, String secret) {
        return given().auth().preemptive().basic(client, secret).contentType("application/json")
                .body("{\"grant_type\":\"client_credentials\"}").when().post(gateway + "/users/v2/oauth/token")
                .then().statusCode(200).extract().path("access_token");
    }

    private static Response poll(String token, String query) {
        return given().header("Authorization", "Bearer " + token)
                .get(gateway + "/notification/v1/player/me/stream/notification/lp?" + query);
    }

    private static Response read(String token, String url) {
        return given().header("Authorization", "Bearer " + token).get(url);
    }
}
