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

/** DESIGN §4 retention: expired notifications are purged; a cursor naming one follows offset_reset_strategy. */
@QuarkusTest
class RetentionTest {

    @Inject
    NotificationStore store;

    @Inject
    RetentionPurge purge;

    @Test
    void expiredNotificationsArePurgedAndACursorNamingOneFollowsTheStrategy() throws Exception {
        UUID player = UUID.randomUUID();
        Instant old = Instant.now().minus(Duration.ofDays(31)).truncatedTo(ChronoUnit.MICROS);
        Instant recent = Instant.now().minus(Duration.ofDays(29)).truncatedTo(ChronoUnit.MICROS);
        store.insert(List.of(new NewNotification(player, "old-1", "old", null, null, null, old),
                new NewNotification(player, "old-2", "old", null, null, null, old),
                new NewNotification(player, "kept", "recent", null, null, null, recent))).await().indefinitely();
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
}
