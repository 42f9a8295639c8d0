package io.outpost.auth.service;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import io.outpost.auth.repository.ClientEntity;

/** An immutable copy of a client row, safe to cache and share between threads. */
public record ClientSnapshot(String clientId, String secretHash, List<String> permissions, UUID playerUuid,
        boolean enabled, Instant createdAt, Instant updatedAt) {

    public ClientSnapshot {
        permissions = List.copyOf(permissions);
    }

    public static ClientSnapshot of(ClientEntity entity) {
        return new ClientSnapshot(entity.clientId(), entity.secretHash(), List.of(entity.permissions()),
                entity.playerUuid(), entity.enabled(), entity.createdAt(), entity.updatedAt());
    }
}
