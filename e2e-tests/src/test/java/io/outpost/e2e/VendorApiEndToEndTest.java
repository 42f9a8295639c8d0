package io.outpost.e2e;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.outpost.model.Topics;
import io.outpost.testsupport.TestKafka;
import io.outpost.testsupport.local.OutpostStack;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/**
 * Issue 40, through the gateway: the vendor's notification API as a shipped game SDK uses it, and the inbox beside it.
 * The SDK's own loop — the per-player path, its cursor the last notification's id (kept after an empty answer), 2 s
 * between a refused poll and the next — sees every notification exactly once, in order, across a
 * notification-service restart.
 */
class VendorApiEndToEndTest {

    /** Players of E2eStack no other test uses. */
    private static final int SDK_PLAYER = 22;
    private static final int INBOX_PLAYER = 23;
    private static final int COUNT = 60;
    private static String gateway;

    @BeforeAll
    static void start() {
        gateway = E2eStack.get().gatewayUrl();
    }

    @Test
    void theSdkLoopSeesEveryNotificationOnceInOrderAcrossARestart() throws Exception {
        OutpostStack stack = E2eStack.get();
        UUID player = E2eStack.PLAYERS.get(SDK_PLAYER);
        String token = token(E2eStack.playerClient(SDK_PLAYER));
        List<String> seen = new ArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        CompletableFuture<Integer> loop = CompletableFuture.supplyAsync(() -> sdkLoop(player, token, seen, running));
        try (TestKafka kafka = new TestKafka()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> E2eStack.heldPolls() >= 1); // the SDK waits with "latest"
            List<String> published = new ArrayList<>();
            for (int i = 0; i < COUNT; i++) {
                String id = "sdk-" + i;
                kafka.send(Topics.PLAYER_NOTIFICATIONS, player.toString(), "{\"player_uuid\":\"" + player
                        + "\",\"notification_id\":\"" + id + "\",\"message\":\"m" + i + "\"}");
                published.add(id);
                if (i == COUNT / 2) {
                    stack.kill("notification-service");
                    stack.restart("notification-service");
                }
                Thread.sleep(50); // a steady rate, as a game backend publishes
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                synchronized (seen) {
                    return seen.size() >= COUNT;
                }
            });
            running.set(false);
            int refused = loop.get(60, TimeUnit.SECONDS);
            synchronized (seen) {
                assertThat(seen).as("once each, in order").isEqualTo(published);
            }
            assertThat(refused).as("polls refused while the service restarted").isGreaterThan(0);
        } finally {
            running.set(false);
            stack.restart("notification-service"); // a no-op unless the test failed while it was down
        }
    }

    /**
     * The SDK's loop: the per-player path, {@code latest} to begin with, then the last notification's id as
     * {@code exclude_before} (kept after an empty answer); 2 s after anything but a 200. Answers how many polls
     * were refused.
     */
    private static int sdkLoop(UUID player, String token, List<String> seen, AtomicBoolean running) {
        String last = null;
        int refused = 0;
        while (running.get()) {
            Response answer;
            try {
                answer = given().header("Authorization", "Bearer " + token)
                        .get(gateway + "/notification/v1/player/" + player + "/stream/notification/lp?deadline=5"
                                + "&offset_reset_strategy=latest" + (last == null ? "" : "&exclude_before=" + last));
            } catch (RuntimeException connectionLost) {
                answer = null;
            }
            if (answer == null || answer.statusCode() != 200) {
                refused++;
                pause(2000);
                continue;
            }
            List<String> ids = answer.jsonPath().getList("notifications.notification_id", String.class);
            if (!ids.isEmpty()) {
                synchronized (seen) {
                    seen.addAll(ids);
                }
                last = ids.get(ids.size() - 1);
            }
        }
        return refused;
    }

    @Test
    void theInboxThroughTheGateway() {
        UUID player = E2eStack.PLAYERS.get(INBOX_PLAYER);
        String token = token(E2eStack.playerClient(INBOX_PLAYER));
        String base = gateway + "/notification/v1/player/me/notification";
        for (int i = 0; i < 3; i++) {
            as(token).contentType("application/json").body("{\"notifications\":[{\"notification_id\":\"in-" + i
                    + "\",\"message\":\"m" + i + "\"}]}").post(base).then().statusCode(200)
                    .body("notification_id", is("in-" + i));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> ids(as(token).get(base)).size() == 3);
        Response page = as(token).get(base + "?page_size=2");
        assertThat(ids(page)).containsExactly("in-2", "in-1");
        String etag = page.header("ETag");
        as(token).header("If-None-Match", etag).get(base + "?page_size=2").then().statusCode(304);
        assertThat(ids(as(token).get(base + "?page_size=2&start_at=" + page.jsonPath().getString("cursor"))))
                .containsExactly("in-0");
        as(token).get(gateway + "/notification/v1/player/" + player + "/notification/in-1").then().statusCode(200)
                .body("message", is("m1"));
        as(token).delete(base + "/in-1").then().statusCode(204);
        as(token).get(base + "/in-1").then().statusCode(404).body("error_code", is("resource_not_found"));
        as(token).contentType("application/json").body("{\"notification_id\":\"in-2\"}").put(base + "/read-marker")
                .then().statusCode(204);
        Response after = as(token).get(base);
        assertThat(ids(after)).containsExactly("in-2", "in-0");
        assertThat(after.jsonPath().getList("notifications.read", Boolean.class)).containsExactly(true, true);
        as(token).header("If-None-Match", etag).get(base + "?page_size=2").then().statusCode(200);
        // the poll says when a cursor was lost
        Response lost = as(token).get(gateway + "/notification/v1/player/me/stream/notification/lp?deadline=0"
                + "&exclude_before=never-was&offset_reset_strategy=earliest");
        assertThat(lost.header("x-svc-cursor-reset")).isEqualTo("earliest");
    }

    private static List<String> ids(Response page) {
        return page.then().statusCode(200).extract().jsonPath().getList("notifications.notification_id", String.class);
    }

    private static RequestSpecification as(String token) {
        return given().header("Authorization", "Bearer " + token);
    }

    private static String token(String client) {
        return given().auth().preemptive().basic(client, E2eStack.PLAYER_SECRET).contentType("application/json")
                .body("{\"grant_type\":\"client_credentials\"}").post(gateway + "/users/v2/oauth/token")
                .then().statusCode(200).extract().path("access_token");
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
