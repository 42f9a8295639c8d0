-- A transaction_id is unique within its sandbox, not across sandboxes: with the global key of V4, a producer for
-- one sandbox that used an id another sandbox would use later hid that sandbox's change from its own history, and
-- nothing reached the dead-letter topic. The key is now (sandbox_id, transaction_id). Every stored row keeps it:
-- ids unique across all sandboxes are unique within each. See docs/history.md, "Repeated ids".
ALTER TABLE history.config_transaction
    DROP CONSTRAINT config_transaction_pkey,
    ADD CONSTRAINT config_transaction_pkey PRIMARY KEY (sandbox_id, transaction_id);

-- The same id again in its sandbox is the same transaction sent again (stored once) only when its content is the
-- same; with other content it is refused, never silently dropped. The append calls this for such a row, so that
-- the whole statement fails as a data exception (class 23) and the ingest isolates the record and dead-letters it
-- with this message.
CREATE FUNCTION history.refuse_conflicting_id(sandbox uuid, id text) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'unique_violation',
        MESSAGE = format('transaction_id_conflict: transaction_id %s of sandbox %s is already stored with other content',
                         id, sandbox);
END
$$;
