-- The event store of sandbox configuration transactions (DESIGN §6): one row per transaction, appended once,
-- never updated or deleted. `id` is the global append sequence. Writers of one sandbox are serialised by a
-- transaction-scoped advisory lock (TransactionStore), so within a sandbox `id` order is also commit order:
-- a reader that has seen id n of a sandbox has already seen every smaller id of it, and keyset paging over
-- (sandbox_id, resource_type, id) never skips a row that commits late.

-- trigram index support for the case-insensitive substring filter on a role's name
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA history;

CREATE TABLE history.config_transaction (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    sandbox_id     uuid        NOT NULL,
    resource_type  text        NOT NULL CHECK (resource_type IN ('role', 'match-making-profile-list')),
    resource_id    uuid        NOT NULL,
    legacy_id      bigint,
    transaction_id text        NOT NULL,
    account_id     text        NOT NULL,
    issued_at      timestamptz NOT NULL,
    operation      text        NOT NULL CHECK (operation IN ('create', 'update', 'delete')),
    version_id     text        NOT NULL,
    version_name   text,
    version        jsonb       NOT NULL,
    -- the role's own name (the `name` of the snapshot, not version_name), lower-cased once at write time
    name_lower     text GENERATED ALWAYS AS (lower(version ->> 'name')) STORED,
    CONSTRAINT config_transaction_transaction_id_key UNIQUE (transaction_id)
);

-- unfiltered listings and the cursor's position: one index range per page, whatever the depth
CREATE INDEX config_transaction_listing ON history.config_transaction (sandbox_id, resource_type, id);
-- role_ids / resource_id and legacy_role_ids filters
CREATE INDEX config_transaction_resource ON history.config_transaction (sandbox_id, resource_type, resource_id, id);
CREATE INDEX config_transaction_legacy ON history.config_transaction (sandbox_id, resource_type, legacy_id, id)
    WHERE legacy_id IS NOT NULL;
-- name filter: substring match, case-insensitive (names of 3+ characters use the trigrams)
CREATE INDEX config_transaction_name ON history.config_transaction USING gin (name_lower history.gin_trgm_ops);

CREATE FUNCTION history.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'history.config_transaction is append-only';
END
$$;
CREATE TRIGGER config_transaction_append_only BEFORE UPDATE OR DELETE ON history.config_transaction
    FOR EACH ROW EXECUTE FUNCTION history.refuse_change();
CREATE TRIGGER config_transaction_no_truncate BEFORE TRUNCATE ON history.config_transaction
    FOR EACH STATEMENT EXECUTE FUNCTION history.refuse_change();

-- Unfiltered totals without counting: kept in the same database transaction as the rows they count.
CREATE TABLE history.listing_total (
    sandbox_id    uuid   NOT NULL,
    resource_type text   NOT NULL,
    total         bigint NOT NULL,
    PRIMARY KEY (sandbox_id, resource_type)
);

-- The key that signs paging cursors, shared by every replica (they share this database) and kept across
-- restarts, so a cursor stays valid on whichever replica the next request reaches.
CREATE TABLE history.cursor_secret (
    id     smallint PRIMARY KEY CHECK (id = 1),
    secret bytea    NOT NULL
);
INSERT INTO history.cursor_secret (id, secret)
VALUES (1, decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
