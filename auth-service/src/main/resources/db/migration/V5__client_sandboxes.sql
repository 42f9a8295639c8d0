-- A client may be bound to sandboxes (docs/auth.md, "Sandbox binding"): its tokens carry them as the claim
-- sandbox_ids, and history-service lets such a token read those sandboxes only. NULL, as every existing row has,
-- binds the client to none: a platform tool reading any sandbox its permissions allow. The admin API and the
-- bootstrap configuration refuse a list that is empty, is not of uuids, repeats one or holds more than 100; they
-- are kept in their canonical lower-case form, as the claim carries them (text, like permissions).
ALTER TABLE auth.client ADD COLUMN sandbox_ids text[]
    CHECK (sandbox_ids IS NULL OR cardinality(sandbox_ids) BETWEEN 1 AND 100);
