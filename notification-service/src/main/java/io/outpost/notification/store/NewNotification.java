package io.outpost.notification.store;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import io.outpost.model.api.Notification;

/**
 * A notification ready to be stored: id and creation time already assigned, {@code custom_data} as the JSON
 * text to keep (null when absent) and, when the ingest has it at hand, as read (so a poll answered from memory
 * does not read the text again).
 */
public record NewNotification(UUID player, String notificationId, String message, String svcUrl,
        String customDataJson, Map<String, Object> customData, String etag, Instant created) {

    /** Without {@code custom_data} as read: it is read from the text when needed. */
    public NewNotification(UUID player, String notificationId, String message, String svcUrl, String customDataJson,
            String etag, Instant created) {
        this(player, notificationId, message, svcUrl, customDataJson, null, etag, created);
    }

    /** As a client reads it, with {@code custom_data} as read (or read from the text by {@code read}). */
    Notification notification(java.util.function.Function<String, Map<String, Object>> read) {
        return new Notification(message, svcUrl, customData != null || customDataJson == null ? customData
                : read.apply(customDataJson), etag, notificationId, created);
    }
}
