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
 * The inbox's statements are indexed (docs/notifications.md, "Reading pages and one notification"): with sequential
 * scans priced out, PostgreSQL plans every one of them on an index, so no page or by-id read walks a table.
 */
@QuarkusTest
class InboxQueryPlanTest {

    @Inject
    Pool pool;

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
        UUID player = UUID.randomUUID();
        Tuple newest = Tuple.tuple().addUUID(player).addString(null).addLong(Long.MAX_VALUE).addString(null)
                .addLong(0L).addInteger(11);
        Tuple byIds = Tuple.tuple().addUUID(player).addString("n-7").addLong(0L).addString("n-2").addLong(0L)
                .addInteger(11);
        for (Tuple args : new Tuple[] { newest, byIds }) {
            String plan = plan(NotificationSql.PAGE, args);
            assertThat(plan).as(plan).contains("Index").doesNotContain("Seq Scan");
        }
    }

    @Test
    void aReadByIdIsPlannedOnTheUniqueIndexOfPlayerAndId() {
        String plan = plan(NotificationSql.BY_ID, Tuple.of(UUID.randomUUID(), "n-7"));
        assertThat(plan).as(plan).contains("notification_player_id_unique").doesNotContain("Seq Scan");
    }
}
