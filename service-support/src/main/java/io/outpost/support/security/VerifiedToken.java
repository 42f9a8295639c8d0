package io.outpost.support.security;

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
 */
public record VerifiedToken(String subject, String clientId, List<String> permissions, String playerUuid,
        Instant issuedAt, Instant expiresAt, String jti, String kid, List<UUID> sandboxIds) {

    public VerifiedToken {
        permissions = List.copyOf(permissions);
        sandboxIds = sandboxIds == null ? null : List.copyOf(sandboxIds);
    }

    /** A token bound to no sandbox. */
    public VerifiedToken(String subject, String clientId, List<String> permissions, String playerUuid,
            Instant issuedAt, Instant expiresAt, String jti, String kid) {
        this(subject, clientId, permissions, playerUuid, issuedAt, expiresAt, jti, kid, null);
    }

    /**
     * Whether the token may act on {@code sandbox}: a token bound to sandboxes only on those, one bound to none on
     * every sandbox (its permissions decide).
     */
    public boolean reaches(UUID sandbox) {
        return sandboxIds == null || sandboxIds.contains(sandbox);
    }

    /**
     * The player this token is bound to, when it carries a well-formed {@code player_uuid}: the canonical
     * 8-4-4-4-12 spelling, in either case.
     */
    public Optional<UUID> player() {
        return Optional.ofNullable(Uuids.parse(playerUuid));
    }
}
