-- Single-token revocations (RFC 7009) while their tokens can still verify: how many each client and all clients have
-- live, so that past a bound a revocation is folded into the client-wide cut-off (docs/auth.md, "Revocation"). The
-- revocation records themselves travel through the outbox as before; rows here are deleted once their tokens expired.
CREATE TABLE auth.revoked_token (
    jti        text        PRIMARY KEY,
    client_id  text        NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX revoked_token_client ON auth.revoked_token (client_id, expires_at);
CREATE INDEX revoked_token_expires ON auth.revoked_token (expires_at);
COMMENT ON TABLE auth.revoked_token IS 'live single-token revocations, counted against outpost.auth.revocations.*';
