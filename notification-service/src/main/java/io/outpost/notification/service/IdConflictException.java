package io.outpost.notification.service;

import java.util.UUID;

/**
 * A published {@code notification_id} is already the player's with other content (or given twice in one body with
 * other content), or a fan-out's request id was sent before with other content: answered 409
 * {@code notification_id_conflict}, nothing published.
 */
public class IdConflictException extends RuntimeException {

    public IdConflictException(String notificationId) {
        super("notification_id " + notificationId + " is already used for this player with other content; a "
                + "notification sent again must be the same, a new one needs a new id", null, false, false);
    }

    /** A fan-out whose request id was sent before with other content: {@code player} has {@code notificationId}. */
    public IdConflictException(String requestId, UUID player, String notificationId) {
        super("request_id " + requestId + " was sent before with other content (player " + player + " has its "
                + "notification_id " + notificationId + "); a request sent again must be the same, a new one needs a "
                + "new request_id", null, false, false);
    }
}
