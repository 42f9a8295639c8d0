package io.outpost.auth.service;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import io.outpost.auth.store.ClientEntity;

/**
 * An immutable copy of a client row, safe to cache and share between threads.
 *
 * @param previousSecretHash        the secret replaced by the last rotation, or null
 * @param previousSecretExpiresAt   until when that secret still works
 * @param tokensRevokedBefore       tokens issued before this are revoked, or null
 * @param sandboxIds                the sandboxes the client is bound to (canonical uuids), or null: bound to none
 */
public record ClientSnapshot(String clientId, String secretHash, List<String> permissions, UUID playerUuid,
        boolean enabled, Instant createdAt, Instant updatedAt, String previousSecretHash,
        Instant previousSecretExpiresAt, Instant tokensRevokedBefore, List<String> sandboxIds) {

    public ClientSnapshot {
        permissions = List.copyOf(permissions);
        sandboxIds = sandboxIds == null ? null : List.copyOf(sandboxIds);
    }

    public static ClientSnapshot of(ClientEntity entity) {
        String[] sandboxes = entity.sandboxIds();
        return new ClientSnapshot(entity.clientId(), entity.secretHash(), List.of(entity.permissions()),
                entity.playerUuid(), entity.enabled(), entity.createdAt(), entity.updatedAt(),
                entity.previousSecretHash(), entity.previousSecretExpiresAt(), entity.tokensRevokedBefore(),
                sandboxes == null ? null : List.of(sandboxes));
    }

    /** The previous secret's hash while its grace period lasts, else null. */
    public String previousSecretHash(Instant now) {
        return previousSecretHash != null && previousSecretExpiresAt != null && now.isBefore(previousSecretExpiresAt)
                ? previousSecretHash : null;
    }

    /** Whether {@code hash} is a secret this client accepts at {@code now}. */
    public boolean accepts(String hash, Instant now) {
        return hash.equals(secretHash) || hash.equals(previousSecretHash(now));
    }
}
