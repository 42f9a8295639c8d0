package io.outpost.auth.repository;

import java.time.Instant;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/** A registered client (table {@code auth.client}). The secret is present only as its KDF hash. */
@Entity
@Table(name = "client", schema = "auth")
public class ClientEntity {

    @Id
    @Column(name = "client_id")
    private String clientId;

    @Column(name = "secret_hash", nullable = false)
    private String secretHash;

    @JdbcTypeCode(SqlTypes.ARRAY)
    @Column(name = "permissions", nullable = false, columnDefinition = "text[]")
    private String[] permissions;

    @Column(name = "player_uuid")
    private UUID playerUuid;

    @Column(name = "enabled", nullable = false)
    private boolean enabled;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    private Instant updatedAt;

    protected ClientEntity() {
    }

    public ClientEntity(String clientId, String secretHash, String[] permissions, UUID playerUuid, boolean enabled,
            Instant now) {
        this.clientId = clientId;
        this.secretHash = secretHash;
        this.permissions = permissions.clone();
        this.playerUuid = playerUuid;
        this.enabled = enabled;
        this.createdAt = now;
        this.updatedAt = now;
    }

    public String clientId() {
        return clientId;
    }

    public String secretHash() {
        return secretHash;
    }

    public String[] permissions() {
        return permissions.clone();
    }

    public UUID playerUuid() {
        return playerUuid;
    }

    public boolean enabled() {
        return enabled;
    }

    public Instant createdAt() {
        return createdAt;
    }

    public Instant updatedAt() {
        return updatedAt;
    }

    public void changeSecretHash(String hash, Instant now) {
        this.secretHash = hash;
        this.updatedAt = now;
    }

    public void changePermissions(String[] permissions, Instant now) {
        this.permissions = permissions.clone();
        this.updatedAt = now;
    }

    public void changePlayer(UUID playerUuid, Instant now) {
        this.playerUuid = playerUuid;
        this.updatedAt = now;
    }

    public void changeEnabled(boolean enabled, Instant now) {
        this.enabled = enabled;
        this.updatedAt = now;
    }
}
