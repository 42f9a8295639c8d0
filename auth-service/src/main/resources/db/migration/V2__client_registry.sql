-- The client registry (DESIGN §2). Secrets are stored only as slow-KDF hashes in PHC-like form
-- ($pbkdf2-sha512$i=<iterations>$<salt>$<hash>), never in clear. A row is never deleted: a client is disabled.
CREATE TABLE auth.client (
    client_id   text        PRIMARY KEY CHECK (client_id ~ '^[A-Za-z0-9._~-]{1,64}$'),
    secret_hash text        NOT NULL,
    permissions text[]      NOT NULL DEFAULT '{}',
    player_uuid uuid,
    enabled     boolean     NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE auth.client IS 'OAuth 2.0 clients allowed the client_credentials grant';
