package io.outpost.model.api;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonUnwrapped;

/**
 * A page of a player's notifications as the inbox lists them (docs/notifications.md, "Reading pages and one
 * notification"): newest first, each with whether the player's read marker covers it, and the cursor to pass as
 * {@code start_at} for the next, older page.
 */
public record InboxPage(List<Entry> notifications, String cursor) {

    public InboxPage {
        notifications = List.copyOf(notifications);
    }

    /** A notification (spec §2.2's fields) and whether it is read. */
    public record Entry(@JsonUnwrapped Notification notification, boolean read) {
    }
}
