package io.outpost.notification.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The inbox's statements are indexed (docs/notifications.md, "Reading pages and one notification"): for a player
 * with thousands of notifications, and with sequential scans priced out, PostgreSQL plans a page on a backward range
 * of the primary key and a by-id read on the unique index of player and id, so neither walks the player's rows.
 */
@QuarkusTest
class InboxQueryPlanTest {

    @Inject
    Pool pool;

    /** A player with 5,000 notifications, {@code n-1} … {@code n-5000}, and fresh statistics. */
    private UUID busyPlayer() {
        UUID player = UUID.randomUUID();
        pool.preparedQuery("INSERT INTO notification.notification (player_uuid, seq, notification_id, message, created) "
                + "SELECT $1, n, 'n-' || n, 'message ' || n, now() FROM generate_series(1, 5000) AS n")
                .execute(Tuple.of(player)).await().indefinitely();
        pool.query("ANALYZE notification.notification").execute().await().indefinitely();
        return player;
    }

    private String plan(String statement, Tuple args) {
        return pool.withConnection(c -> c.query("SET enable_seqscan = off").execute()
                .chain(() -> c.preparedQuery("EXPLAIN " + statement).execute(args))
                .call(() -> c.query("RESET enable_seqscan").execute()))
                .map(rows -> StreamSupport.stream(rows.spliterator(), false).map(row -> row.getString(0))
                        .collect(Collectors.joining("\n")))
                .await().indefinitely();
    }

    @Test
    void aPageFromTheNewestFromAnIdAndAboveAPositionIsPlannedOnIndexesOnly() {
        UUID player = busyPlayer();
        Tuple newest = Tuple.tuple().addUUID(player).addString(null).addLong(Long.MAX_VALUE).addString(null)
                .addLong(0L).addInteger(11);
        Tuple byIds = Tuple.tuple().addUUID(player).addString("n-4000").addLong(0L).addString("n-2").addLong(0L)
                .addInteger(11);
        for (Tuple args : new Tuple[] { newest, byIds }) {
            String plan = plan(NotificationSql.PAGE, args);
            assertThat(plan).as(plan).contains("Index Scan Backward using notification_pkey")
                    .doesNotContain("Seq Scan");
        }
    }

    @Test
    void aReadByIdIsPlannedOnTheUniqueIndexOfPlayerAndId() {
        String plan = plan(NotificationSql.BY_ID, Tuple.of(busyPlayer(), "n-7"));
        assertThat(plan).as(plan).contains("notification_player_id_unique").doesNotContain("Seq Scan");
    }
}
