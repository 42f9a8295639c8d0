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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import io.outpost.model.Permissions;
import io.outpost.model.Topics;
import io.outpost.model.api.NotificationPage;
import io.outpost.notification.service.RetentionPurge;
import io.outpost.notification.store.NotificationStore;
import io.outpost.testsupport.TestKafka;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * A reused {@code notification_id} is never dropped silently (docs/notifications.md, "Repeated ids"), whatever
 * became of the notification that has it — deleted, expired, emptied by the purge — and on every path: a create is
 * 409, a fan-out sent again with other content is 409 before anything is published, a Kafka record is dead-lettered
 * with the reason, and of two inserts racing with the same id and other content one is stored and the other refused.
 * The same id with the same content stays the same notification.
 */
@QuarkusTest
class ReusedIdTest {

    private static final String BACKEND = TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_WRITE).sign();
    private static final TestKafka KAFKA = new TestKafka();

    @Inject
    RetentionPurge purge;
    @Inject
    NotificationStore store;
    @Inject
    Pool pool;

    @AfterAll
    static void close() {
        KAFKA.close();
    }

    private static ValidatableResponse create(UUID player, String id, String message, String more) {
        return given().header("Authorization", "Bearer " + BACKEND).contentType("application/json")
                .body("{\"notifications\":[{\"notification_id\":\"" + id + "\",\"message\":\"" + message + "\"" + more
                        + "}]}")
                .post("/notification/v1/player/" + player + "/notification").then();
    }

    private static ValidatableResponse create(UUID player, String id, String message) {
        return create(player, id, message, "");
    }

    private static ValidatableResponse byId(UUID player, String id) {
        return given().header("Authorization", "Bearer " + reader(player))
                .get("/notification/v1/player/" + player + "/notification/" + id).then();
    }

    private static void delete(UUID player, String id) {
        given().header("Authorization", "Bearer " + BACKEND)
                .delete("/notification/v1/player/" + player + "/notification/" + id).then().statusCode(204);
    }

    private static ValidatableResponse fanOut(String requestId, List<UUID> players, String message) {
        StringBuilder uuids = new StringBuilder();
        players.forEach(p -> uuids.append(uuids.isEmpty() ? "" : ",").append('"').append(p).append('"'));
        return given().header("Authorization", "Bearer " + BACKEND).contentType("application/json")
                .body("{\"request_id\":\"" + requestId + "\",\"player_uuids\":[" + uuids + "],\"notification\":"
                        + "{\"message\":\"" + message + "\"}}")
                .post("/notification/v1/notifications").then();
    }

    private static void conflict(ValidatableResponse response) {
        response.statusCode(409).body("error_code", is("notification_id_conflict"));
    }

    private static void awaitStored(UUID player, String id) {
        await().atMost(Duration.ofSeconds(30)).until(() -> byId(player, id).extract().statusCode() == 200);
    }

    /** The player's notifications from the earliest, once {@code marker} (published after the rest) is there. */
    private static List<String> messagesUpTo(UUID player, String marker) {
        create(player, marker, "marker").statusCode(200);
        NotificationPage page = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0&max_page_size=100").get()), p -> ids(p).contains(marker));
        return page.notifications().stream().map(n -> n.message()).toList();
    }

    @Test
    void aDeletedNotificationsIdWithOtherContentIsRefusedBeforeAndAfterThePurgeEmptiesIt() throws Exception {
        UUID player = UUID.randomUUID();
        create(player, "promo-1", "Spring sale").statusCode(200);
        awaitStored(player, "promo-1");
        delete(player, "promo-1");
        conflict(create(player, "promo-1", "Summer sale"));
        create(player, "promo-1", "Spring sale").statusCode(200); // sent again: the same (deleted) notification

        purge.purge().await().atMost(Duration.ofSeconds(30)); // the deleted one is emptied of its content
        conflict(create(player, "promo-1", "Summer sale"));
        create(player, "promo-1", "Spring sale").statusCode(200);
        byId(player, "promo-1").statusCode(404);
        assertThat(messagesUpTo(player, "after")).containsExactly("marker");
    }

    @Test
    void anExpiredNotificationsIdWithOtherContentIsRefused() {
        UUID player = UUID.randomUUID();
        String expiresAt = ",\"expires_at\":\"" + Instant.now().plusSeconds(5) + "\"";
        create(player, "flash", "Flash sale", expiresAt).statusCode(200);
        awaitStored(player, "flash");
        await().atMost(Duration.ofSeconds(30)).until(() -> byId(player, "flash").extract().statusCode() == 404);
        conflict(create(player, "flash", "Another sale"));
        create(player, "flash", "Flash sale", expiresAt).statusCode(200);
    }

    @Test
    void aKafkaRecordReusingADeletedAndEmptiedIdWithOtherContentIsDeadLettered() throws Exception {
        UUID player = UUID.randomUUID();
        String id = "kafka-" + UUID.randomUUID();
        create(player, id, "original").statusCode(200);
        awaitStored(player, id);
        delete(player, id);
        purge.purge().await().atMost(Duration.ofSeconds(30));
        String forged = "{\"player_uuid\":\"" + player + "\",\"notification_id\":\"" + id + "\",\"message\":\"forged\"}";
        KAFKA.send(Topics.PLAYER_NOTIFICATIONS, player.toString(), forged);
        assertThat(messagesUpTo(player, "next")).containsExactly("marker");
        List<TestKafka.Received> letters = KAFKA.read(Topics.deadLetter(Topics.PLAYER_NOTIFICATIONS),
                player.toString(), 1, Duration.ofSeconds(30));
        assertThat(letters).singleElement().satisfies(letter -> {
            assertThat(letter.value()).isEqualTo(forged);
            assertThat(letter.headers().get(Topics.DLQ_REASON_HEADER)).isEqualTo("value: the store refused it: "
                    + "notification_id_conflict: notification_id " + id + " of player " + player + " is already "
                    + "stored with other content (SQLSTATE 23505) [store_refused]");
        });
    }

    @Test
    void aFanOutSentAgainWithOtherContentIsRefusedBeforeAnythingIsPublished() {
        List<UUID> players = List.of(UUID.randomUUID(), UUID.randomUUID());
        String request = "season-" + UUID.randomUUID();
        List<String> ids = fanOut(request, players, "Season 7").statusCode(200).extract().jsonPath()
                .getList("notification_ids", String.class);
        awaitStored(players.get(1), ids.get(1));
        delete(players.get(1), ids.get(1));
        ValidatableResponse refused = fanOut(request, players, "Season 8");
        conflict(refused);
        refused.body("desc", is("request_id " + request + " was sent before with other content (player "
                + players.get(0) + " has its notification_id " + ids.get(0) + "); a request sent again must be the "
                + "same, a new one needs a new request_id"));
        conflict(fanOut(request, List.of(players.get(1)), "Season 8")); // its one copy was deleted
        fanOut(request, players, "Season 7").statusCode(200).body("notification_ids", is(ids));
        assertThat(messagesUpTo(players.get(0), "m")).containsExactly("Season 7", "marker");
    }

    /**
     * Two inserts of the same id with other content, both begun before either commits (a session holds the player's
     * cursor row until both wait for it): the second to run sees the first's row only as last committed, not in
     * its snapshot — one is stored, the other refused, never skipped as a repeat.
     */
    @Test
    void ofTwoInsertsRacingWithTheSameIdAndOtherContentOneIsStoredAndTheOtherRefused() throws Exception {
        UUID player = UUID.randomUUID();
        pool.preparedQuery("INSERT INTO notification.player_cursor (player_uuid, last_seq) VALUES ($1, 0)")
                .execute(Tuple.of(player)).await().atMost(Duration.ofSeconds(5));
        SqlConnection holder = pool.getConnection().await().atMost(Duration.ofSeconds(5));
        List<CompletableFuture<?>> inserts = new ArrayList<>();
        try {
            Transaction held = holder.begin().await().atMost(Duration.ofSeconds(5));
            holder.preparedQuery("SELECT 1 FROM notification.player_cursor WHERE player_uuid = $1 FOR UPDATE")
                    .execute(Tuple.of(player)).await().atMost(Duration.ofSeconds(5));
            for (String message : List.of("one", "two")) {
                inserts.add(store.insert(List.of(Fixture.note(player, "raced", message))).subscribeAsCompletionStage());
            }
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> pool.query(
                    "SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND wait_event_type = 'Lock' "
                            + "AND query LIKE '%INSERT INTO notification.player_cursor%'").execute()
                    .await().atMost(Duration.ofSeconds(5)).iterator().next().getLong("n") == 2);
            held.rollback().await().atMost(Duration.ofSeconds(5));
        } finally {
            holder.close().await().atMost(Duration.ofSeconds(5));
        }
        List<String> refusals = new ArrayList<>();
        for (CompletableFuture<?> insert : inserts) {
            try {
                insert.get();
            } catch (ExecutionException e) {
                StringBuilder messages = new StringBuilder();
                for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
                    messages.append(cause.getMessage()).append('\n');
                }
                refusals.add(messages.toString());
            }
        }
        assertThat(refusals).singleElement().asString().contains("notification_id_conflict: notification_id raced of "
                + "player " + player + " is already stored with other content");
        byId(player, "raced").statusCode(200);
    }

    /** Two creates racing over HTTP with the same id and other content: one is stored, the other 409 or dead-lettered. */
    @Test
    void ofTwoCreatesRacingWithTheSameIdAndOtherContentOneWinsAndTheOtherIsNeverDropped() throws Exception {
        UUID player = UUID.randomUUID();
        ExecutorService side = Executors.newFixedThreadPool(2);
        List<Integer> statuses;
        try {
            CompletableFuture<Integer> one = CompletableFuture.supplyAsync(() -> create(player, "race", "one")
                    .extract().statusCode(), side);
            CompletableFuture<Integer> two = CompletableFuture.supplyAsync(() -> create(player, "race", "two")
                    .extract().statusCode(), side);
            statuses = List.of(one.get(), two.get());
        } finally {
            side.shutdown();
        }
        assertThat(statuses).allMatch(s -> s == 200 || s == 409).contains(200);
        List<String> stored = messagesUpTo(player, "after-race");
        assertThat(stored).hasSize(2).last().isEqualTo("marker");
        if (!statuses.contains(409)) {
            List<TestKafka.Received> letters = KAFKA.read(Topics.deadLetter(Topics.PLAYER_NOTIFICATIONS),
                    player.toString(), 1, Duration.ofSeconds(30));
            assertThat(letters).singleElement().satisfies(letter -> assertThat(letter.value())
                    .doesNotContain("\"" + stored.get(0) + "\""));
        }
    }
}
