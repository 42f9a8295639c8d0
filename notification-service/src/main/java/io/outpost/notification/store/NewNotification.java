package io.outpost.notification.store;

import java.time.Instant;
import java.util.UUID;

/**
 * A notification ready to be stored: id and creation time already assigned, {@code custom_data} as the JSON
 * text to keep (null when absent).
 */
public record NewNotification(UUID player, String notificationId, String message, String svcUrl,
        String customDataJson, String etag, Instant created) {
}
