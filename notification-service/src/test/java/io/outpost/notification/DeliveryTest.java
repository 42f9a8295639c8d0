package io.outpost.notification;

import static io.outpost.notification.Fixture.ids;
import static io.outpost.notification.Fixture.page;
import static io.outpost.notification.Fixture.poll;
import static io.outpost.notification.Fixture.reader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;


import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.model.Topics;
import io.outpost.model.api.NotificationPage;
import io.outpost.notification.service.PollRegistry;
import io.outpost.notification.store.NotificationStore;
import io.outpost.notification.store.WakeListener;
import io.outpost.testsupport.TestKafka;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 10's principle, counted in queries of the poll path: no database round trip between a record this
 * instance ingests and the held poll it answers, none for a client that re-polls with the cursor it was just
 * given, and one — not one per poll — for an announcement of many players stored by another instance.
 */
@QuarkusTest
class DeliveryTest {

    private static final TestKafka KAFKA = new TestKafka();
    private static OtherReplica other;
    private static NotificationStore otherReplica;

    @Inject
    PollRegistry registry;

    @Inject
    MeterRegistry meters;

    @Inject
    WakeListener listener;

    @BeforeAll
    static void secondReplica() {
        other = new OtherReplica("test-other-replica");
        otherReplica = other.store;
    }

    @AfterAll
    static void close() {
        other.close();
        KAFKA.close();
    }

    private double queries(String kind) {
        return meters.find("outpost.notification.store.queries").tag("query", kind).counter().count();
    }

    private double pollReads() {
        return queries("start") + queries("after") + queries("after_many") + queries("heads");
    }

    /** Continuations are used only while every announcement reaches the instance. */
    @BeforeEach
    void listening() {
        await().atMost(Duration.ofSeconds(30)).until(listener::listening);
    }

    private void awaitWaiting(UUID player, int polls) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                .until(() -> registry.waitingBy(player) == polls);
    }

    private static void publish(UUID player, String id) {
        KAFKA.send(Topics.PLAYER_NOTIFICATIONS, player.toString(), "{\"player_uuid\":\"" + player
                + "\",\"message\":\"m\",\"notification_id\":\"" + id + "\"}");
    }

    @Test
    void aPollIsAnsweredFromWhatThisInstanceIngestedAndItsRepollIsHeldWithoutAQuery() throws Exception {
        UUID player = UUID.randomUUID();
        CompletableFuture<HttpResponse<String>> first = poll(reader(player), "deadline=20");
        awaitWaiting(player, 1);
        double before = pollReads();
        publish(player, "a");
        NotificationPage page = page(first.get());
        assertThat(ids(page)).containsExactly("a");

        CompletableFuture<HttpResponse<String>> next = poll(reader(player), "deadline=20&exclude_before=" + page.cursor());
        awaitWaiting(player, 1);
        publish(player, "b");
        publish(player, "c");
        NotificationPage second = page(next.get());
        assertThat(ids(second)).first().isEqualTo("b");
        assertThat(pollReads()).as("queries of the poll path: start %s after %s after_many %s heads %s", queries("start"),
                queries("after"), queries("after_many"), queries("heads")).isEqualTo(before);
        // the rest comes along the cursor loop, whatever arrived in which batch
        List<String> all = new ArrayList<>(ids(second));
        String cursor = second.cursor();
        while (all.size() < 2) {
            NotificationPage more = page(poll(reader(player), "deadline=20&exclude_before=" + cursor).get());
            all.addAll(ids(more));
            cursor = more.cursor();
        }
        assertThat(all).containsExactly("b", "c");
    }

    /**
     * {@code custom_data} reaches the player as it was sent — its text, only the whitespace between tokens dropped:
     * keys in their order, numbers as written — answered from what this instance ingested without a query, and
     * the same page when it is read back from the store.
     */
    @Test
    void customDataIsPassedThroughAsSentFromMemoryAndFromTheStore() throws Exception {
        UUID player = UUID.randomUUID();
        String sent = "{ \"z\": 1e2, \"n\": -0, \"d\": 1.10, \"big\": 123456789012345678901234567890,"
                + " \"s\": \"\\u00e9\\\"\\/\", \"k\": [ {}, [], null, true, 0.1e1 ] }";
        String served = "{\"z\":1e2,\"n\":-0,\"d\":1.10,\"big\":123456789012345678901234567890,"
                + "\"s\":\"\u00e9\\\"/\",\"k\":[{},[],null,true,0.1e1]}";
        CompletableFuture<HttpResponse<String>> held = poll(reader(player), "deadline=20");
        awaitWaiting(player, 1);
        double before = pollReads();
        KAFKA.send(Topics.PLAYER_NOTIFICATIONS, player.toString(), "{\"player_uuid\":\"" + player
                + "\",\"message\":\"m\",\"notification_id\":\"raw\",\"custom_data\":" + sent + "}");

        String fromMemory = held.get().body();
        assertThat(pollReads()).isEqualTo(before);
        String fromStore = poll(reader(player), "offset_reset_strategy=earliest&deadline=0").get().body();

        assertThat(fromMemory).startsWith("{\"notifications\":[{\"message\":\"m\",\"custom_data\":" + served + ",");
        assertThat(fromStore).isEqualTo(fromMemory);
    }

    @Test
    void anotherInstancesStoreOfManyPlayersWakesTheirPollsWithOneQuery() throws Exception {
        List<UUID> players = new ArrayList<>();
        List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            UUID player = UUID.randomUUID();
            players.add(player);
            held.add(poll(reader(player), "deadline=20"));
        }
        players.forEach(player -> awaitWaiting(player, 1));
        double single = queries("after");
        double batched = queries("after_many");
        otherReplica.insert(players.stream().map(p -> Fixture.note(p, "x-" + p, "hello")).toList())
                .await().atMost(Duration.ofSeconds(10));
        for (int i = 0; i < players.size(); i++) {
            assertThat(ids(page(held.get(i).get()))).containsExactly("x-" + players.get(i));
        }
        assertThat(queries("after_many") - batched).as("queries for one announcement of 50 players").isEqualTo(1);
        assertThat(queries("after")).isEqualTo(single);
    }
}
