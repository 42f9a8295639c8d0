package io.outpost.model.api;

import java.util.List;

/** Spec §2.3: the answer of a long poll, oldest to newest, and the cursor to pass as exclude_before next. */
public record NotificationPage(List<Notification> notifications, String cursor) {

    public NotificationPage {
        notifications = List.copyOf(notifications);
    }
}
