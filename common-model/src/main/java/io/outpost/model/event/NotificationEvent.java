package io.outpost.model.event;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

import io.outpost.model.RawJsonObject;
import io.outpost.model.Uuids;
import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;

/**
 * A notification for one player as producers publish it on {@code player-notifications} (key: the player
 * uuid), DESIGN §4. {@code notification_id} and {@code created} are assigned at ingest when absent; from its
 * {@code expires_at}, if any, it is neither delivered nor listed. The same shape, without {@code player_uuid}, is an
 * entry of the HTTP publish body.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NotificationEvent(
        @JsonProperty("player_uuid") String playerUuid,
        String message,
        @JsonProperty("svc_url") String svcUrl,
        @JsonProperty("custom_data") RawJsonObject customData,
        String etag,
        @JsonProperty("notification_id") String notificationId,
        @JsonFormat(shape = JsonFormat.Shape.STRING)
        @JsonDeserialize(using = IsoInstantDeserializer.class) Instant created,
        @JsonProperty("expires_at") @JsonFormat(shape = JsonFormat.Shape.STRING)
        @JsonDeserialize(using = IsoInstantDeserializer.class) Instant expiresAt) {

    /** One without an expiry. */
    public NotificationEvent(String playerUuid, String message, String svcUrl, RawJsonObject customData, String etag,
            String notificationId, Instant created) {
        this(playerUuid, message, svcUrl, customData, etag, notificationId, created, null);
    }

    /** Spec §2.2. */
    public static final int MAX_MESSAGE = 4096;
    /** Spec §2.2. */
    public static final int MAX_SVC_URL = 4096;
    /** Producer-chosen ids are opaque but bounded, since clients echo them back as exclude_before. */
    public static final int MAX_NOTIFICATION_ID = 128;
    /**
     * An etag is a version tag: 1,024 characters (at most 4 KiB as UTF-8) is far more than any needs, and bounds
     * what one notification copied for many players costs (docs/notifications.md, "Many players in one call").
     */
    public static final int MAX_ETAG = 1024;
    /**
     * Bytes of {@code custom_data}'s JSON text (UTF-8) at most: what a Kafka record holds beside the other fields
     * (the whole notification is bounded at 1,000,000 bytes as JSON where it is published).
     */
    public static final int MAX_CUSTOM_DATA_BYTES = 1_000_000;

    /**
     * Prefix of the long poll's position cursors ({@code pos-<n>}); a producer's id may not start with it, so
     * that an id can never be read as a position (docs/notifications.md, "Cursor semantics").
     */
    public static final String RESERVED_ID_PREFIX = "pos-";

    /**
     * Every violation of spec §2.2 and DESIGN §4/§5, located under {@code at}, in a new list the caller may add
     * to; empty when valid.
     */
    public List<ErrorDetail> validate(List<Object> at) {
        List<ErrorDetail> errors = new ArrayList<>();
        List<Object> player = ErrorDetail.loc(at, "player_uuid");
        if (Constraints.required(errors, player, playerUuid) && Constraints.text(errors, player, playerUuid)) {
            Constraints.uuid(errors, player, playerUuid);
        }
        errors.addAll(validateContent(at));
        return errors;
    }

    /** The checks of {@link #validate} except {@code player_uuid}, for bodies whose player is in the path. */
    public List<ErrorDetail> validateContent(List<Object> at) {
        List<ErrorDetail> errors = new ArrayList<>();
        List<Object> messageLoc = ErrorDetail.loc(at, "message");
        if (Constraints.required(errors, messageLoc, message)) {
            Constraints.text(errors, messageLoc, message, 0, MAX_MESSAGE);
        }
        Constraints.text(errors, ErrorDetail.loc(at, "svc_url"), svcUrl, 1, MAX_SVC_URL);
        Constraints.text(errors, ErrorDetail.loc(at, "etag"), etag, 1, MAX_ETAG);
        List<Object> id = ErrorDetail.loc(at, "notification_id");
        if (Constraints.text(errors, id, notificationId, 1, MAX_NOTIFICATION_ID) && notificationId != null
                && notificationId.startsWith(RESERVED_ID_PREFIX)) {
            errors.add(ErrorDetail.valueError(id, "notification_id should not start with '" + RESERVED_ID_PREFIX
                    + "', which is reserved for position cursors"));
        }
        List<Object> customDataLoc = ErrorDetail.loc(at, "custom_data");
        if (Constraints.json(errors, customDataLoc, customData) && customData != null) {
            long bytes = Constraints.utf8Bytes(customData.json());
            if (bytes > MAX_CUSTOM_DATA_BYTES) {
                errors.add(ErrorDetail.valueError(customDataLoc, "custom_data should be at most "
                        + MAX_CUSTOM_DATA_BYTES + " bytes as JSON, not " + bytes));
            }
        }
        Constraints.instant(errors, ErrorDetail.loc(at, "created"), created);
        Constraints.instant(errors, ErrorDetail.loc(at, "expires_at"), expiresAt);
        return errors;
    }

    /** The player as a UUID; call only on a validated event. */
    public UUID player() {
        return Uuids.fromString(playerUuid);
    }

    public NotificationEvent withPlayer(UUID player) {
        return new NotificationEvent(player.toString(), message, svcUrl, customData, etag, notificationId, created,
                expiresAt);
    }
}
