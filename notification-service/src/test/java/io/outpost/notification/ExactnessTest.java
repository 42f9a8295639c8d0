package io.outpost.notification;

import static io.outpost.notification.Fixture.TOKENS;
import static io.outpost.notification.Fixture.page;
import static io.outpost.notification.Fixture.poll;
import static io.outpost.notification.Fixture.reader;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import io.outpost.model.Permissions;
import io.outpost.model.Topics;
import io.outpost.model.api.Notification;
import io.outpost.model.api.NotificationPage;
import io.outpost.testsupport.TestKafka;
import io.quarkus.test.junit.QuarkusTest;

/** Issue 4, point 4 (a) and (b): a client looping on the cursor sees every notification once, in order. */
@QuarkusTest
class ExactnessTest {

    private static final ExecutorService CLIENTS = Executors.newCachedThreadPool();

    @AfterAll
    static void stopClients() {
        CLIENTS.shutdownNow();
    }

    /** What a game client does: poll, keep what came, pass the cursor back, until {@code expected} arrived. */
    static List<Notification> loopOnCursor(UUID player, int expected, String firstQuery) throws Exception {
        List<Notification> received = new ArrayList<>();
        String query = firstQuery;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (received.size() < expected && System.nanoTime() < deadline) {
            NotificationPage page = page(poll(reader(player), query).get(60, TimeUnit.SECONDS));
            received.addAll(page.notifications());
            query = "max_page_size=7&deadline=5&exclude_before=" + page.cursor();
        }
        return received;
    }

    @Test
    void thousandPublishedWhileTheClientLoopsArriveOnceInOrder() throws Exception {
        UUID player = UUID.randomUUID();
        // the client starts first ("latest", nothing yet), then the publisher sends 100 batches of 10
        CompletableFuture<List<Notification>> client = CompletableFuture.supplyAsync(() -> {
            try {
                return loopOnCursor(player, 1000, "max_page_size=7&deadline=5");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, CLIENTS);
        LongPollTest.awaitHeld(player);
        String token = TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_WRITE).sign();
        List<String> published = new ArrayList<>();
        for (int batch = 0; batch < 100; batch++) {
            StringBuilder body = new StringBuilder("{\"notifications\":[");
            for (int i = 0; i < 10; i++) {
                body.append(i == 0 ? "" : ",").append("{\"message\":\"n").append(batch * 10 + i).append("\"}");
            }
            published.addAll(given().header("Authorization", "Bearer " + token).contentType("application/json")
                    .body(body.append("]}").toString()).when().post("/notification/v1/player/" + player + "/notification")
                    .then().statusCode(200).extract().jsonPath().getList("notification_ids", String.class));
        }
        List<Notification> received = client.get(150, TimeUnit.SECONDS);
        assertThat(received.stream().map(Notification::notificationId).toList()).isEqualTo(published);
        assertThat(received.get(999).message()).isEqualTo("n999");
    }

    @Test
    void concurrentPlayersSeeOnlyTheirOwnNotifications() throws Exception {
        List<UUID> players = new ArrayList<>();
        for (int p = 0; p < 20; p++) {
            players.add(UUID.randomUUID());
        }
        List<CompletableFuture<List<Notification>>> clients = new ArrayList<>();
        for (UUID player : players) {
            clients.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return loopOnCursor(player, 50, "offset_reset_strategy=earliest&max_page_size=7&deadline=5");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, CLIENTS));
        }
        // interleaved: every player's n-th notification before anyone's (n+1)-th
        List<Map.Entry<String, String>> records = new ArrayList<>();
        for (int n = 0; n < 50; n++) {
            for (UUID player : players) {
                records.add(Map.entry(player.toString(), "{\"player_uuid\":\"" + player + "\",\"message\":\"" + player
                        + " " + n + "\",\"notification_id\":\"" + player + "-" + n + "\"}"));
            }
        }
        try (TestKafka kafka = new TestKafka()) {
            kafka.sendAll(Topics.PLAYER_NOTIFICATIONS, records);
        }
        for (int p = 0; p < players.size(); p++) {
            UUID player = players.get(p);
            List<String> expected = new ArrayList<>();
            for (int n = 0; n < 50; n++) {
                expected.add(player + " " + n);
            }
            assertThat(clients.get(p).get(150, TimeUnit.SECONDS).stream().map(Notification::message).toList())
                    .isEqualTo(expected);
        }
    }
}
