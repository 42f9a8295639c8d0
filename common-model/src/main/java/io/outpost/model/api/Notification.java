package io.outpost.model.api;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.outpost.model.RawJsonObject;

/**
 * Spec §2.2: one notification as a player reads it, and when it expires if its producer said so. Optional fields
 * that are absent are omitted from the JSON, never sent as {@code null}; {@code custom_data} is passed through as its
 * text ({@link RawJsonObject}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Notification(
        String message,
        @JsonProperty("svc_url") String svcUrl,
        @JsonProperty("custom_data") RawJsonObject customData,
        String etag,
        @JsonProperty("notification_id") String notificationId,
        @JsonFormat(shape = JsonFormat.Shape.STRING) Instant created,
        @JsonProperty("expires_at") @JsonFormat(shape = JsonFormat.Shape.STRING) Instant expiresAt) {

    /** One without an expiry. */
    public Notification(String message, String svcUrl, RawJsonObject customData, String etag, String notificationId,
            Instant created) {
        this(message, svcUrl, customData, etag, notificationId, created, null);
    }
}
