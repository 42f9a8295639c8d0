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
 * @param sandboxIds the sandboxes the token is bound to (its {@code sandbox_ids} claim, each a uuid), or null when
 *                   it carries none: a token of a client bound to no sandbox (docs/auth.md, "Sandbox binding")
 * @param signedBy   the public key that verified it, so that it is refused once the key set no longer holds that key
 *                   under {@code kid} (retired, or replaced); null when not known
 */
public record VerifiedToken(String subject, String clientId, List<String> permissions, String playerUuid,
        Instant issuedAt, Instant expiresAt, String jti, String kid, List<UUID> sandboxIds, PublicKey signedBy) {

    public VerifiedToken {
        permissions = List.copyOf(permissions);
        sandboxIds = sandboxIds == null ? null : List.copyOf(sandboxIds);
    }

    /**
     * Whether the token may act on {@code sandbox}: a token bound to sandboxes only on those, one bound to none on
     * every sandbox (its permissions decide).
     */
    public boolean reaches(UUID sandbox) {
        return sandboxIds == null || sandboxIds.contains(sandbox);
    }

    /**
     * A token bound to no sandbox whose verifying key is not known (not checked against the key set again).
     */
    public VerifiedToken(String subject, String clientId, List<String> permissions, String playerUuid,
            Instant issuedAt, Instant expiresAt, String jti, String kid) {
        this(subject, clientId, permissions, playerUuid, issuedAt, expiresAt, jti, kid, null, null);
    }

    /**
     * The player this token is bound to, when it carries a well-formed {@code player_uuid}: the canonical
     * 8-4-4-4-12 spelling, in either case.
     */
    public Optional<UUID> player() {
        return Optional.ofNullable(Uuids.parse(playerUuid));
    }
}
