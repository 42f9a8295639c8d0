package io.outpost.notification;

import static io.outpost.notification.Fixture.page;
import static io.outpost.notification.Fixture.poll;
import static io.outpost.notification.Fixture.reader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import io.outpost.model.Topics;
import io.outpost.model.api.Notification;
import io.outpost.testsupport.TestKafka;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The ingest gives up on an insert at its store timeout ({@code outpost.notification.ingest-store-timeout}, here
 * 1 s) and retries the batch: the insert it gave up on is cancelled in PostgreSQL, not left waiting beside the
 * retry (one more backend and pooled connection per retry) and committing behind it once the way is free.
 */
@QuarkusTest
@TestProfile(SmallSettingsProfile.class)
class AbandonedInsertTest {

    private static final TestKafka KAFKA = new TestKafka();

    @Inject
    Pool pool;

    @AfterAll
    static void close() {
        KAFKA.close();
    }

    /** (pid, start of the statement) of each backend running an ingest insert that waits for a lock. */
    private List<String> waitingInserts() {
        List<String> found = new ArrayList<>();
        for (Row row : pool.query("SELECT pid, query_start::text AS started FROM pg_stat_activity WHERE state = 'active' "
                + "AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO notification.player_cursor%'").execute()
                .await().atMost(Duration.ofSeconds(5))) {
            found.add(row.getInteger("pid") + "@" + row.getString("started"));
        }
        return found;
    }

    @Test
    void anInsertPastTheStoreTimeoutIsCancelledAndTheRecordStoredOnce() throws Exception {
        UUID player = UUID.randomUUID();
        pool.preparedQuery("INSERT INTO notification.player_cursor (player_uuid, last_seq) VALUES ($1, 0)")
                .execute(Tuple.of(player)).await().atMost(Duration.ofSeconds(5));
        // another session holds the player's cursor row: every insert for the player waits for it
        SqlConnection holder = pool.getConnection().await().atMost(Duration.ofSeconds(5));
        Transaction held = holder.begin().await().atMost(Duration.ofSeconds(5));
        try {
            holder.query("SET LOCAL idle_in_transaction_session_timeout = 0").execute().await().atMost(Duration.ofSeconds(5));
            holder.preparedQuery("SELECT 1 FROM notification.player_cursor WHERE player_uuid = $1 FOR UPDATE")
                    .execute(Tuple.of(player)).await().atMost(Duration.ofSeconds(5));
            KAFKA.send(Topics.PLAYER_NOTIFICATIONS, player.toString(),
                    "{\"player_uuid\":\"" + player + "\",\"message\":\"held\",\"notification_id\":\"n-1\"}");
            String first = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(this::waitingInserts, waiting -> !waiting.isEmpty()).get(0);
            // lock_timeout would end the wait after 10 s; the store timeout's cancel ends it after 1 s
            await().atMost(Duration.ofMillis(2_500)).pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> assertThat(waitingInserts()).as("the insert first given up on").doesNotContain(first));
            // retried meanwhile, one attempt at a time: none of those given up on is left waiting beside the next
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> assertThat(waitingInserts()).as("inserts waiting at once").hasSizeLessThanOrEqualTo(1));
        } finally {
            held.rollback().await().atMost(Duration.ofSeconds(5));
            holder.close().await().atMost(Duration.ofSeconds(5));
        }
        List<Notification> stored = await().atMost(Duration.ofSeconds(30)).until(() -> page(poll(reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()).notifications(), found -> !found.isEmpty());
        assertThat(stored).extracting(Notification::notificationId, Notification::message)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("n-1", "held"));
        // no insert given up on committed behind the one that stored it: the player's sequence moved by one
        assertThat(pool.preparedQuery("SELECT last_seq FROM notification.player_cursor WHERE player_uuid = $1")
                .execute(Tuple.of(player)).await().atMost(Duration.ofSeconds(5)).iterator().next().getLong(0))
                .isEqualTo(1L);
    }
}
