package io.outpost.history.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The one key that signs paging cursors (table {@code history.cursor_secret}, created by migration V2). */
@Entity
@Table(name = "cursor_secret", schema = "history")
public class CursorSecretEntity {

    static final short ID = 1;

    @Id
    private short id;

    @Column(name = "secret", nullable = false)
    private byte[] secret;

    protected CursorSecretEntity() {
    }

    public byte[] secret() {
        return secret.clone();
    }
}
