package io.outpost.notification;

import static io.outpost.notification.Fixture.ids;
import static io.outpost.notification.Fixture.page;
import static io.outpost.notification.Fixture.poll;
import static io.outpost.notification.Fixture.reader;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.outpost.model.api.NotificationPage;
import io.outpost.notification.service.RetentionPurge;
import io.outpost.notification.store.NewNotification;
import io.outpost.notification.store.NotificationStore;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * DESIGN §4 retention: notifications stored longer ago than the retention are purged, a prefix of the player's
 * sequence at a time; a cursor naming a purged one follows offset_reset_strategy; the producer's {@code created}
 * plays no part, so no notification in the middle of a sequence disappears.
 */
@QuarkusTest
class RetentionTest {

    @Inject
    NotificationStore store;

    @Inject
    RetentionPurge purge;

    @Inject
    Pool pool;

    @Test
    void notificationsStoredBeforeTheRetentionArePurgedAndACursorNamingOneFollowsTheStrategy() throws Exception {
        UUID player = UUID.randomUUID();
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        store.insert(List.of(new NewNotification(player, "old-1", "old", null, null, null, now),
                new NewNotification(player, "old-2", "old", null, null, null, now),
                new NewNotification(player, "kept", "recent", null, null, null, now))).await().indefinitely();
        pool.preparedQuery("UPDATE notification.notification SET stored_at = now() - interval '31 days' "
                + "WHERE player_uuid = $1 AND notification_id LIKE 'old-%'").execute(Tuple.of(player))
                .await().indefinitely();
        assertThat(purge.purge().await().indefinitely()).isGreaterThanOrEqualTo(2L);

        assertThat(ids(page(poll(reader(player), "offset_reset_strategy=earliest&deadline=0").get())))
                .containsExactly("kept");
        assertThat(ids(page(poll(reader(player), "exclude_before=old-1&offset_reset_strategy=earliest&deadline=0")
                .get()))).containsExactly("kept");
        NotificationPage latest = page(poll(reader(player), "exclude_before=old-1&deadline=0").get());
        assertThat(latest.notifications()).isEmpty();
        Fixture.store(store, player, "next", 1);
        assertThat(ids(page(poll(reader(player), "deadline=0&exclude_before=" + latest.cursor()).get())))
                .containsExactly("next-0");
    }

    @Test
    void aNotificationWhoseProducerTimeIsOldIsKeptInItsPlaceInTheSequence() throws Exception {
        UUID player = UUID.randomUUID();
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        Instant longAgo = now.minus(Duration.ofDays(400));
        store.insert(List.of(new NewNotification(player, "a", "first", null, null, null, now),
                new NewNotification(player, "b", "created long ago", null, null, null, longAgo),
                new NewNotification(player, "c", "third", null, null, null, now))).await().indefinitely();
        purge.purge().await().indefinitely();

        NotificationPage first = page(poll(reader(player), "offset_reset_strategy=earliest&deadline=0&max_page_size=1").get());
        assertThat(ids(first)).containsExactly("a");
        NotificationPage rest = page(poll(reader(player), "deadline=0&exclude_before=" + first.cursor()).get());
        assertThat(ids(rest)).containsExactly("b", "c");
        assertThat(rest.notifications().get(0).created()).isEqualTo(longAgo);
    }
}
