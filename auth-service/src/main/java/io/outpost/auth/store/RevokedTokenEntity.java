package io.outpost.auth.store;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A single-token revocation whose token can still verify (table {@code auth.revoked_token}): counted, not read. */
@Entity
@Table(name = "revoked_token", schema = "auth")
public class RevokedTokenEntity {

    @Id
    @Column(name = "jti")
    private String jti;

    @Column(name = "client_id", nullable = false)
    private String clientId;

    @Column(name = "expires_at", nullable = false)
    private Instant expiresAt;

    protected RevokedTokenEntity() {
    }

    public RevokedTokenEntity(String jti, String clientId, Instant expiresAt) {
        this.jti = jti;
        this.clientId = clientId;
        this.expiresAt = expiresAt;
    }
}
