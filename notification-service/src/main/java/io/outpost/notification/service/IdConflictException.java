package io.outpost.notification.service;

/**
 * A published {@code notification_id} is already the player's with other content (or given twice in one body with
 * other content): answered 409 {@code notification_id_conflict}, nothing published.
 */
public class IdConflictException extends RuntimeException {

    public IdConflictException(String notificationId) {
        super("notification_id " + notificationId + " is already used for this player with other content; a "
                + "notification sent again must be the same, a new one needs a new id", null, false, false);
    }
}
