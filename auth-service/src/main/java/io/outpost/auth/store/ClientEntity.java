package io.outpost.auth.store;

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

    /** The sandboxes the client is bound to, canonical uuids; null: bound to none (docs/auth.md). */
    @JdbcTypeCode(SqlTypes.ARRAY)
    @Column(name = "sandbox_ids", columnDefinition = "text[]")
    private String[] sandboxIds;

    @Column(name = "enabled", nullable = false)
    private boolean enabled;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    private Instant updatedAt;

    @Column(name = "previous_secret_hash")
    private String previousSecretHash;

    @Column(name = "previous_secret_expires_at")
    private Instant previousSecretExpiresAt;

    @Column(name = "tokens_revoked_before")
    private Instant tokensRevokedBefore;

    @Column(name = "admin_changed_at")
    private Instant adminChangedAt;

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

    /** The sandboxes the client is bound to; null when it is bound to none. */
    public String[] sandboxIds() {
        return sandboxIds == null ? null : sandboxIds.clone();
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

    public String previousSecretHash() {
        return previousSecretHash;
    }

    public Instant previousSecretExpiresAt() {
        return previousSecretExpiresAt;
    }

    public Instant tokensRevokedBefore() {
        return tokensRevokedBefore;
    }

    public Instant adminChangedAt() {
        return adminChangedAt;
    }

    /** A new secret; the old one keeps working until {@code graceUntil} (none when null or not after now). */
    public void changeSecretHash(String hash, Instant graceUntil, Instant now) {
        boolean grace = graceUntil != null && graceUntil.isAfter(now);
        this.previousSecretHash = grace ? secretHash : null;
        this.previousSecretExpiresAt = grace ? graceUntil : null;
        this.secretHash = hash;
        this.updatedAt = now;
    }

    /** The previous secret stops working now, whatever was left of its grace. */
    public void endPreviousSecret(Instant now) {
        this.previousSecretHash = null;
        this.previousSecretExpiresAt = null;
        this.updatedAt = now;
    }

    /** Tokens issued before {@code cutoff} are revoked (a later cut-off only ever replaces an earlier one). */
    public void revokeTokensBefore(Instant cutoff, Instant now) {
        if (tokensRevokedBefore == null || cutoff.isAfter(tokensRevokedBefore)) {
            this.tokensRevokedBefore = cutoff;
        }
        this.updatedAt = now;
    }

    /** Marks a change made through the admin API: bootstrap never undoes it. */
    public void changedByAdmin(Instant now) {
        this.adminChangedAt = now;
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

    /** Binds the client to {@code sandboxIds} (canonical uuids), or to none when null. */
    public void changeSandboxes(String[] sandboxIds, Instant now) {
        this.sandboxIds = sandboxIds == null ? null : sandboxIds.clone();
        this.updatedAt = now;
    }

    public void changeEnabled(boolean enabled, Instant now) {
        this.enabled = enabled;
        this.updatedAt = now;
    }
}
