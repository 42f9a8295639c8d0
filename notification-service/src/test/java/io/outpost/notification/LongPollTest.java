package io.outpost.notification;

import static io.outpost.notification.Fixture.ids;
import static io.outpost.notification.Fixture.page;
import static io.outpost.notification.Fixture.poll;
import static io.outpost.notification.Fixture.reader;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.outpost.model.RawJsonObject;
import io.outpost.model.api.NotificationPage;
import io.outpost.notification.store.NewNotification;
import io.outpost.notification.store.NotificationStore;
import io.quarkus.test.junit.QuarkusTest;

/** Spec §4.2 and DESIGN §4: what a player reads, in which order, and which cursor comes back. */
@QuarkusTest
class LongPollTest {

    @Inject
    NotificationStore store;

    @Test
    void answersAtOnceWithTheExactBodyWhenNotificationsExist() {
        UUID player = UUID.randomUUID();
        Instant created = Instant.parse("2026-01-02T03:04:05.123456Z");
        store.insert(List.of(new NewNotification(player, "n-1", "hello", "/svc/x",
                new RawJsonObject("{\"b\":1.10,\"a\":[true,null]}"), "etag-1", created), new NewNotification(player, "n-2", "plain", null, null, null, created)))
                .await().indefinitely();
        given().header("Authorization", "Bearer " + reader(player))
                .when().get(Fixture.LP + "?offset_reset_strategy=earliest")
                .then().statusCode(200).body(is("{\"notifications\":[{\"message\":\"hello\",\"svc_url\":\"/svc/x\","
                        + "\"custom_data\":{\"b\":1.10,\"a\":[true,null]},\"etag\":\"etag-1\",\"notification_id\":\"n-1\","
                        + "\"created\":\"2026-01-02T03:04:05.123456Z\"},{\"message\":\"plain\",\"notification_id\":\"n-2\","
                        + "\"created\":\"2026-01-02T03:04:05.123456Z\"}],\"cursor\":\"n-2\"}"));
    }

    @Test
    void returnsOnlyNewerNotificationsWhenCursorIsGiven() throws Exception {
        UUID player = UUID.randomUUID();
        Fixture.store(store, player, "a", 5);
        NotificationPage page = page(poll(reader(player), "exclude_before=a-1&deadline=0").get());
        assertThat(ids(page)).containsExactly("a-2", "a-3", "a-4");
        assertThat(page.cursor()).isEqualTo("a-4");
    }

    @Test
    void maxPageSizeBoundsThePageAndTheCursorResumesAfterIt() throws Exception {
        UUID player = UUID.randomUUID();
        Fixture.store(store, player, "b", 5);
        NotificationPage first = page(poll(reader(player), "offset_reset_strategy=earliest&max_page_size=2").get());
        assertThat(ids(first)).containsExactly("b-0", "b-1");
        NotificationPage second = page(poll(reader(player), "max_page_size=2&exclude_before=" + first.cursor()).get());
        assertThat(ids(second)).containsExactly("b-2", "b-3");
    }

    @Test
    void latestWithoutCursorWaitsForNewNotificationsOnly() throws Exception {
        UUID player = UUID.randomUUID();
        // "now" is when a poll is admitted: a notification announced after that is delivered even if it was
        // committed a moment before. A first poll that receives the old ones shows their announcement is past.
        CompletableFuture<HttpResponse<String>> first = poll(reader(player), "deadline=20");
        awaitHeld(player);
        Fixture.store(store, player, "old", 3);
        assertThat(ids(page(first.get()))).containsExactly("old-0", "old-1", "old-2");
        CompletableFuture<HttpResponse<String>> held = poll(reader(player), "deadline=20");
        awaitHeld(player);
        Fixture.store(store, player, "new", 1);
        NotificationPage page = page(held.get());
        assertThat(ids(page)).containsExactly("new-0");
    }

    @Test
    void unknownCursorFollowsTheResetStrategy() throws Exception {
        UUID player = UUID.randomUUID();
        Fixture.store(store, player, "c", 2);
        assertThat(ids(page(poll(reader(player), "exclude_before=nope&offset_reset_strategy=earliest&deadline=0").get())))
                .containsExactly("c-0", "c-1");
        NotificationPage latest = page(poll(reader(player), "exclude_before=nope&deadline=0").get());
        assertThat(latest.notifications()).isEmpty();
        Fixture.store(store, player, "d", 1);
        assertThat(ids(page(poll(reader(player), "deadline=0&exclude_before=" + latest.cursor()).get())))
                .containsExactly("d-0");
    }

    @Test
    void emptyAnswerAtTheDeadlineKeepsTheCursorSoNothingIsMissed() throws Exception {
        UUID player = UUID.randomUUID();
        Fixture.store(store, player, "e", 1);
        long start = System.nanoTime();
        NotificationPage empty = page(poll(reader(player), "deadline=1&exclude_before=e-0").get());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(900), Duration.ofSeconds(5));
        assertThat(empty.notifications()).isEmpty();
        assertThat(empty.cursor()).isEqualTo("e-0");
        // no cursor and nothing new: a position token for "now", which resumes exactly there
        NotificationPage now = page(poll(reader(player), "deadline=0").get());
        assertThat(now.cursor()).isNotEqualTo("e-0");
        Fixture.store(store, player, "f", 2);
        assertThat(ids(page(poll(reader(player), "deadline=0&exclude_before=" + now.cursor()).get())))
                .containsExactly("f-0", "f-1");
    }

    @Test
    void heldPollAnswersWithin50MillisecondsOfTheStore() throws Exception {
        UUID player = UUID.randomUUID();
        long[] millis = new long[9];
        String cursor = "";
        for (int i = 0; i < millis.length; i++) {
            CompletableFuture<HttpResponse<String>> held = poll(reader(player), "deadline=30&exclude_before=" + cursor);
            awaitHeld(player);
            long start = System.nanoTime();
            Fixture.store(store, player, "w" + i, 1);
            NotificationPage page = page(held.get());
            millis[i] = (System.nanoTime() - start) / 1_000_000;
            assertThat(ids(page)).containsExactly("w" + i + "-0");
            cursor = page.cursor();
        }
        java.util.Arrays.sort(millis);
        assertThat(millis[millis.length / 2]).as("median wake latency (ms), sorted: %s", java.util.Arrays.toString(millis))
                .isLessThanOrEqualTo(50);
    }

    @Test
    void repeatedIdIsStoredOnce() throws Exception {
        UUID player = UUID.randomUUID();
        Fixture.store(store, player, "r", 2);
        Fixture.store(store, player, "r", 3);
        assertThat(ids(page(poll(reader(player), "offset_reset_strategy=earliest&deadline=0").get())))
                .containsExactly("r-0", "r-1", "r-2");
    }

    static void awaitHeld(UUID player) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                .until(() -> io.quarkus.arc.Arc.container().instance(io.outpost.notification.service.PollRegistry.class)
                        .get().heldBy(player) > 0);
    }
}
