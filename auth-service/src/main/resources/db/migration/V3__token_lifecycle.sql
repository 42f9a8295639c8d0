-- Token lifecycle (docs/auth.md): secret rotation with a grace period, client-wide revocation, changes made by an
-- administrator (bootstrap never undoes them), and the outbox that carries revocations and audit events to Kafka.
ALTER TABLE auth.client
    ADD COLUMN previous_secret_hash       text,
    ADD COLUMN previous_secret_expires_at timestamptz,
    ADD COLUMN tokens_revoked_before      timestamptz,
    ADD COLUMN admin_changed_at           timestamptz;

COMMENT ON COLUMN auth.client.previous_secret_hash IS 'the secret replaced by the last rotation, valid until previous_secret_expires_at';
COMMENT ON COLUMN auth.client.tokens_revoked_before IS 'tokens of this client issued before this time are revoked';
COMMENT ON COLUMN auth.client.admin_changed_at IS 'last change through the admin API; bootstrap leaves such clients alone';

-- Written in the transaction of the change it reports, published to Kafka afterwards, then deleted.
CREATE TABLE auth.outbox (
    id           bigserial   PRIMARY KEY,
    topic        text        NOT NULL,
    record_key   text        NOT NULL,
    record_value text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE auth.outbox IS 'Kafka records (revocations, audit events) not yet acknowledged by the broker';
