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
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.model.api.NotificationPage;
import io.outpost.notification.service.PollRegistry;
import io.outpost.notification.store.NewNotification;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import io.vertx.sqlclient.Transaction;

/**
 * New polls look up where they start together: a burst of new polls while PostgreSQL is slow costs a few start
 * queries, not one each (so it cannot overflow the connection pool's wait queue), each poll still gets exactly
 * its own start, and a poll waiting behind a store that does not answer gets its 503 at its own deadline.
 */
@QuarkusTest
class NewPollBurstTest {

    /** StartBatches.IN_FLIGHT: start queries that run at once. */
    private static final int IN_FLIGHT = 4;
    private static OtherReplica other;
    private static io.vertx.core.Vertx vertx;

    @Inject
    PollRegistry registry;

    @Inject
    MeterRegistry meters;

    @Inject
    io.vertx.mutiny.sqlclient.Pool pool;

    @BeforeAll
    static void store() {
        other = new OtherReplica("test-new-poll-burst");
        vertx = io.vertx.core.Vertx.vertx();
    }

    @AfterAll
    static void close() {
        other.close();
        vertx.close();
    }

    private double startQueries() {
        return meters.find("outpost.notification.store.queries").tag("query", "start").counter().count();
    }

    @Test
    void aBurstOfNewPollsSharesFewStartQueriesAndEachGetsItsOwnStart() throws Exception {
        int count = 240;
        List<UUID> players = new ArrayList<>();
        List<NewNotification> notes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            UUID player = UUID.randomUUID();
            players.add(player);
            for (int n = 0; n < 3; n++) {
                notes.add(Fixture.note(player, i + "-" + n, "m"));
            }
        }
        other.store.insert(notes).await().atMost(Duration.ofSeconds(10));
        int heldBefore = registry.held();
        double before = startQueries();
        List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
        try (TableLock lock = TableLock.take("notification.player_cursor")) {
            for (int i = 0; i < count; i++) {
                polls.add(poll(reader(players.get(i)), switch (i % 3) {
                    case 0 -> "deadline=0&offset_reset_strategy=earliest&max_page_size=2";
                    case 1 -> "deadline=0&exclude_before=" + i + "-0";
                    default -> "deadline=0";
                }));
            }
            // every poll admitted and waiting for its start while the first queries are blocked
            await().atMost(Duration.ofSeconds(4)).until(() -> registry.held() - heldBefore == count);
        }
        for (int i = 0; i < count; i++) {
            NotificationPage page = page(polls.get(i).get());
            switch (i % 3) {
                case 0 -> assertThat(ids(page)).as("poll %d from the earliest", i).containsExactly(i + "-0", i + "-1");
                case 1 -> assertThat(ids(page)).as("poll %d after its id", i).containsExactly(i + "-1", i + "-2");
                default -> assertThat(ids(page)).as("poll %d from now", i).isEmpty();
            }
        }
        assertThat(startQueries() - before).as("start queries for %d new polls", count)
                .isLessThanOrEqualTo(IN_FLIGHT + 1);
    }

    @Test
    void aNewPollWaitingBehindAStoreThatDoesNotAnswerGets503AtItsDeadline() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
        long started;
        try (TableLock lock = TableLock.take("notification.player_cursor")) {
            started = System.nanoTime();
            for (int i = 0; i < 3 * IN_FLIGHT; i++) {
                polls.add(poll(reader(UUID.randomUUID()), "deadline=0"));
            }
            for (CompletableFuture<HttpResponse<String>> each : polls) {
                HttpResponse<String> response = each.get();
                assertThat(response.statusCode()).isEqualTo(503);
                assertThat(response.body()).contains("\"error_code\":\"store_unavailable\"");
                assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
            }
        }
        // the query deadline is 5 s: those queued behind the blocked queries are not answered a deadline later
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(6_500));
        UUID player = UUID.randomUUID();
        assertThat(ids(page(poll(reader(player), "deadline=0").get()))).isEmpty();
    }

    /** Backends other than the asking one running a start query (NotificationStore's START_MANY). */
    private long startQueriesRunning() {
        return pool.query("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() "
                + "AND query LIKE '%WITH ORDINALITY AS w(p, id, tok, earliest, lim, k)%'").execute()
                .await().atMost(Duration.ofSeconds(5)).iterator().next().getLong(0);
    }

    @Test
    void aNewPollPastItsDeadlineIs503AndLeavesNoQueryRunning() throws Exception {
        try (TableLock lock = TableLock.take("notification.player_cursor")) {
            HttpResponse<String> response = poll(reader(UUID.randomUUID()), "deadline=0").get();
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.body()).isEqualTo("{\"error_code\":\"store_unavailable\","
                    + "\"desc\":\"The store is unavailable for a moment; retry shortly\"}");
            // the table is still locked: only a cancel ends the start query's wait this soon (lock_timeout: 10 s)
            await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> assertThat(startQueriesRunning()).as("start queries still running").isZero());
        }
        UUID player = UUID.randomUUID();
        assertThat(ids(page(poll(reader(player), "deadline=0").get()))).isEmpty();
    }

    /** A table locked against reads by another session until closed (a store that does not answer). */
    private static final class TableLock implements AutoCloseable {
        private final PgConnection connection;
        private final Transaction transaction;

        private TableLock(PgConnection connection, Transaction transaction) {
            this.connection = connection;
            this.transaction = transaction;
        }

        static TableLock take(String table) throws Exception {
            PostgresConnection pg = BackingServices.shared().postgres();
            PgConnection connection = PgConnection.connect(vertx, new PgConnectOptions()
                    .setHost(pg.host()).setPort(pg.port()).setDatabase(pg.database()).setUser(pg.username())
                    .setPassword(pg.password())).toCompletionStage().toCompletableFuture().get();
            Transaction transaction = connection.begin().toCompletionStage().toCompletableFuture().get();
            connection.query("LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE").execute().toCompletionStage()
                    .toCompletableFuture().get();
            return new TableLock(connection, transaction);
        }

        @Override
        public void close() throws Exception {
            transaction.rollback().toCompletionStage().toCompletableFuture().get();
            connection.close().toCompletionStage().toCompletableFuture().get();
        }
    }
}
