package io.outpost.notification;

import static io.outpost.notification.Fixture.ids;
import static io.outpost.notification.Fixture.page;
import static io.outpost.notification.Fixture.poll;
import static io.outpost.notification.Fixture.reader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;


import io.outpost.notification.service.PollRegistry;
import io.outpost.notification.store.NotificationStore;
import io.outpost.notification.store.WakeListener;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.outpost.testsupport.ProcessFreeze;
import io.quarkus.test.junit.QuarkusTest;

/** DESIGN §4 wake-ups: across replicas through PostgreSQL, after the listener lost its connection, and cheaply. */
@QuarkusTest
class WakeUpTest {

    private static OtherReplica other;
    /** Another replica's store: its own connections, its own NOTIFY. */
    private static NotificationStore otherReplica;

    @Inject
    NotificationStore store;

    @Inject
    PollRegistry registry;

    @Inject
    WakeListener listener;

    @BeforeAll
    static void secondReplica() {
        other = new OtherReplica("test-other-replica");
        otherReplica = other.store;
    }

    @AfterAll
    static void closeSecondReplica() {
        other.close();
    }

    @Test
    void pollWakesWhenAnotherReplicaStores() throws Exception {
        UUID player = UUID.randomUUID();
        CompletableFuture<HttpResponse<String>> held = poll(reader(player), "deadline=30");
        LongPollTest.awaitHeld(player);
        Fixture.store(otherReplica, player, "x", 2);
        assertThat(ids(page(held.get()))).containsExactly("x-0", "x-1");
    }

    @Test
    void pollWakesOnAPlainInsertFromAnotherConnection() throws Exception {
        UUID player = UUID.randomUUID();
        CompletableFuture<HttpResponse<String>> held = poll(reader(player), "deadline=30");
        LongPollTest.awaitHeld(player);
        sql("WITH c AS (INSERT INTO notification.player_cursor VALUES ('" + player + "', 1) RETURNING 1), "
                + "i AS (INSERT INTO notification.notification (player_uuid, seq, notification_id, message, created) "
                + "VALUES ('" + player + "', 1, 'by-hand', 'hi', now()) RETURNING 1) SELECT count(*) FROM i, c");
        assertThat(ids(page(held.get()))).containsExactly("by-hand");
    }

    @Test
    void pollWakesAfterTheListenerConnectionWasLost() throws Exception {
        UUID player = UUID.randomUUID();
        CompletableFuture<HttpResponse<String>> held = poll(reader(player), "deadline=30");
        LongPollTest.awaitHeld(player);
        int killed = sql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '"
                + WakeListener.APPLICATION_NAME + "'");
        assertThat(killed).isEqualTo(1);
        await().atMost(Duration.ofSeconds(15)).until(listener::listening);
        Fixture.store(otherReplica, player, "y", 1);
        assertThat(ids(page(held.get()))).containsExactly("y-0");
    }

    /**
     * The listener's connection goes silent (its PostgreSQL backend frozen, as behind a dead network path, while
     * every other connection works): closing it would wait for TCP, so it is given up at the first unanswered
     * keepalive and a new one listens. A poll held meanwhile gets what another replica stored then, whose
     * announcement went to the silent connection, well before its deadline.
     */
    @Test
    void aPollWakesAfterTheListenerConnectionWentSilent() throws Exception {
        int silent = sql("SELECT pid FROM pg_stat_activity WHERE application_name = '" + WakeListener.APPLICATION_NAME
                + "'");
        UUID player = UUID.randomUUID();
        CompletableFuture<HttpResponse<String>> held = poll(reader(player), "deadline=120");
        LongPollTest.awaitHeld(player);
        try (ProcessFreeze frozen = ProcessFreeze.process(silent)) {
            Fixture.store(otherReplica, player, "s", 1);
            assertThat(ids(page(held.get(60, TimeUnit.SECONDS)))).containsExactly("s-0");
            assertThat(sql("SELECT count(*) FROM pg_stat_activity WHERE application_name = '"
                    + WakeListener.APPLICATION_NAME + "' AND pid <> " + silent)).isEqualTo(1);
        }
        // thawed, the silent backend reads the client's goodbye and ends: one listener connection again
        await().atMost(Duration.ofSeconds(30)).until(() -> sql("SELECT count(*) FROM pg_stat_activity WHERE "
                + "application_name = '" + WakeListener.APPLICATION_NAME + "'") == 1);
    }

    @Test
    void heldPollsTakeNoThreadAndNoDatabaseConnection() throws Exception {
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        List<UUID> players = new ArrayList<>();
        List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            UUID player = UUID.randomUUID();
            players.add(player);
            held.add(poll(reader(player), "deadline=120"));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> registry.held() >= 300);
        // the reactive pool (at most 20), the ingest pool (2) and the LISTEN connection, none busy: nothing per poll
        assertThat(sql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'vertx-pg-client'"))
                .isLessThanOrEqualTo(23);
        await().atMost(Duration.ofSeconds(10)).until(() -> sql("SELECT count(*) FROM pg_stat_activity "
                + "WHERE application_name = 'vertx-pg-client' AND state <> 'idle'") == 0); // first queries done
        assertThat(registry.held()).isGreaterThanOrEqualTo(300);
        // the test's own HTTP client adds a thread or two; the server adds none per poll
        assertThat(ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore).isLessThan(20);
        otherReplica.insert(players.stream().map(p -> Fixture.note(p, "z", "wake")).toList()).await().indefinitely();
        for (CompletableFuture<HttpResponse<String>> poll : held) {
            assertThat(ids(page(poll.get()))).containsExactly("z");
        }
    }

    /**
     * Many polls start while another replica stores notifications for their players in batches, each batch the
     * moment its players' polls are admitted — so stores land while polls are being admitted, while their first
     * query runs, and while they are held, and one announcement names many players. Every poll must answer with
     * its notification: a lost wake-up would show as an empty page at the deadline.
     */
    @Test
    void noWakeUpIsLostWhilePollsStartAndStoresArriveInBatches() throws Exception {
        int polls = 400;
        List<UUID> players = new ArrayList<>();
        List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
        java.util.Set<UUID> stored = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread storer = new Thread(() -> {
            while (!done.get() || stored.size() < players.size()) {
                List<UUID> ready = new ArrayList<>();
                synchronized (players) {
                    for (UUID p : players) {
                        if (!stored.contains(p) && registry.heldBy(p) > 0) {
                            ready.add(p);
                        }
                    }
                }
                if (!ready.isEmpty()) {
                    otherReplica.insert(ready.stream().map(p -> Fixture.note(p, "n-" + p, "hello")).toList())
                            .await().atMost(Duration.ofSeconds(30));
                    stored.addAll(ready);
                }
                Thread.onSpinWait();
            }
        }, "wake-stress-storer");
        storer.start();
        for (int i = 0; i < polls; i++) {
            UUID player = UUID.randomUUID();
            synchronized (players) {
                players.add(player);
            }
            held.add(poll(reader(player), "deadline=30"));
        }
        done.set(true);
        for (int i = 0; i < polls; i++) {
            assertThat(ids(page(held.get(i).get()))).as("poll of player %d", i).containsExactly("n-" + players.get(i));
        }
        storer.join(10_000);
    }

    private static int sql(String query) throws SQLException {
        PostgresConnection pg = BackingServices.shared().postgres();
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
                ResultSet rows = c.createStatement().executeQuery(query)) {
            rows.next();
            return rows.getInt(1);
        }
    }
}
