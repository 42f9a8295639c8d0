package io.outpost.notification.store;

import java.time.Instant;
import java.util.UUID;

import io.outpost.model.RawJsonObject;
import io.outpost.model.api.Notification;

/**
 * A notification ready to be stored: id and creation time already assigned, {@code custom_data} as the JSON text
 * it was sent as (null when absent), which the store keeps and a poll answered from memory writes out as it is.
 */
public record NewNotification(UUID player, String notificationId, String message, String svcUrl,
        RawJsonObject customData, String etag, Instant created, Instant expiresAt) {

    /** One without an expiry. */
    public NewNotification(UUID player, String notificationId, String message, String svcUrl, RawJsonObject customData,
            String etag, Instant created) {
        this(player, notificationId, message, svcUrl, customData, etag, created, null);
    }

    /** Whether it has expired at {@code now}: from then on it is neither delivered nor listed. */
    public boolean expiredAt(Instant now) {
        return expiresAt != null && !now.isBefore(expiresAt);
    }

    /** The text of {@code custom_data}, as the store is given it; null when absent. */
    String customDataJson() {
        return customData == null ? null : customData.json();
    }

    /** As a client reads it. */
    Notification notification() {
        return new Notification(message, svcUrl, customData, etag, notificationId, created, expiresAt);
    }
}
