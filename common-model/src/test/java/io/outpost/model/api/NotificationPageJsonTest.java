package io.outpost.model.api;

import static io.outpost.model.TestJson.assertSerializesTo;
import static io.outpost.model.TestJson.roundTrip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class NotificationPageJsonTest {

    private static final Notification FIRST =
            new Notification("one", null, null, null, "n-1", Instant.parse("2026-01-02T03:04:05Z"));
    private static final Notification SECOND =
            new Notification("two", "/s", null, "e", "n-2", Instant.parse("2026-01-02T03:04:06Z"));

    @Test
    void writesNotificationsInOrderAndCursor() {
        assertSerializesTo(new NotificationPage(List.of(FIRST, SECOND), "n-2"), """
                {"notifications":[
                   {"message":"one","notification_id":"n-1","created":"2026-01-02T03:04:05Z"},
                   {"message":"two","svc_url":"/s","etag":"e","notification_id":"n-2",
                    "created":"2026-01-02T03:04:06Z"}],
                 "cursor":"n-2"}""");
    }

    @Test
    void writesEmptyPageWithEmptyArrayAndCursor() {
        assertSerializesTo(new NotificationPage(List.of(), "c-9"), """
                {"notifications":[],"cursor":"c-9"}""");
    }

    @Test
    void roundTripsKeepingOrder() {
        NotificationPage page = new NotificationPage(List.of(SECOND, FIRST), "n-1");

        NotificationPage back = roundTrip(page);

        assertThat(back).isEqualTo(page);
        assertThat(back.notifications()).extracting(Notification::notificationId).containsExactly("n-2", "n-1");
    }

    @Test
    void copiesNotificationListDefensively() {
        List<Notification> source = new ArrayList<>(List.of(FIRST));
        NotificationPage page = new NotificationPage(source, "n-1");
        source.add(SECOND);

        assertThat(page.notifications()).containsExactly(FIRST);
        assertThatThrownBy(() -> page.notifications().add(SECOND))
                .isInstanceOf(UnsupportedOperationException.class);
    }
}
