package io.outpost.notification.store;

import io.outpost.model.api.Notification;

/** A stored notification with its position in its player's sequence. */
public record StoredNotification(long seq, Notification notification) {
}
