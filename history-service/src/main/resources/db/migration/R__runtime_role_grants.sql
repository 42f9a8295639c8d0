-- What history-service's runtime role, history_app, may do where it exists (deploy/'s database roles; docs/deploy.md,
-- "Database roles"): append transactions, never change or remove them; the running totals it upserts are the only
-- rows it updates. Local runs and tests have one user for everything, and no such role: nothing to grant.
-- A repeatable migration: Flyway runs it after the versioned ones whenever this file changes, so a migration that
-- adds a table must add a line here (or touch this comment).
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'history_app') THEN
        GRANT USAGE ON SCHEMA history TO history_app;
        GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA history TO history_app;
        GRANT UPDATE ON history.listing_total, history.name_total TO history_app;
        -- the measure of a row appended without version_bytes (V9), run by the insert's trigger
        GRANT EXECUTE ON FUNCTION history.version_bytes(jsonb), history.measure_version() TO history_app;
        -- the append's refusal of a repeated transaction_id with other content (V10)
        GRANT EXECUTE ON FUNCTION history.refuse_conflicting_id(uuid, text) TO history_app;
    END IF;
END
$$;
