package io.outpost.support.security;

import java.security.PublicKey;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import io.outpost.model.Uuids;

/**
 * What a verified access token says about its caller.
 *
 * @param playerUuid the {@code player_uuid} claim as sent (may be absent or not a uuid)
 * @param jti        the token's id ({@code jti}), null when it has none
 * @param kid        the key that signed it
 * @param signedBy   the public key that verified it, so that it is refused once the key set no longer holds that key
 *                   under {@code kid} (retired, or replaced); null when not known
 */
public record VerifiedToken(String subject, String clientId, List<String> permissions, String playerUuid,
        Instant issuedAt, Instant expiresAt, String jti, String kid, PublicKey signedBy) {

    public VerifiedToken {
        permissions = List.copyOf(permissions);
    }

    /** A token whose verifying key is not known (not checked against the key set again). */
    public VerifiedToken(String subject, String clientId, List<String> permissions, String playerUuid,
            Instant issuedAt, Instant expiresAt, String jti, String kid) {
        this(subject, clientId, permissions, playerUuid, issuedAt, expiresAt, jti, kid, null);
    }

    /**
     * The player this token is bound to, when it carries a well-formed {@code player_uuid}: the canonical
     * 8-4-4-4-12 spelling, in either case.
     */
    public Optional<UUID> player() {
        return Optional.ofNullable(Uuids.parse(playerUuid));
    }
}
