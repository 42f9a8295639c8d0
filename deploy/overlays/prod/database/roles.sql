-- Outpost's database roles and schemas (docs/deploy.md, "Database roles"). CloudNativePG runs this once, when it
-- creates the cluster, in the database outpost as the superuser; it then gives each role LOGIN and its password
-- (postgres.yaml, spec.managed.roles). On an existing cluster run it once by hand (kubectl cnpg psql).
--
-- Per service: <service>_migrator owns the schema and runs the migrations (the pods' init container);
-- <service>_app, the role the service runs as, gets only the DML it needs on what the migrator creates.
DO $$
DECLARE
    role text;
BEGIN
    FOREACH role IN ARRAY ARRAY['auth_migrator', 'auth_app', 'notification_migrator', 'notification_app',
                                'history_migrator', 'history_app'] LOOP
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = role) THEN
            EXECUTE format('CREATE ROLE %I NOLOGIN', role);
        END IF;
    END LOOP;
END
$$;

REVOKE ALL ON DATABASE outpost FROM PUBLIC;
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT CONNECT ON DATABASE outpost TO auth_migrator, auth_app, notification_migrator, notification_app,
    history_migrator, history_app;
-- migrations may stage data in temporary tables (history's V5 does)
GRANT TEMPORARY ON DATABASE outpost TO auth_migrator, notification_migrator, history_migrator;

-- auth-service: the client registry; the service reads and changes its rows.
CREATE SCHEMA IF NOT EXISTS auth AUTHORIZATION auth_migrator;
GRANT USAGE ON SCHEMA auth TO auth_app;
ALTER DEFAULT PRIVILEGES FOR ROLE auth_migrator IN SCHEMA auth
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO auth_app;
ALTER DEFAULT PRIVILEGES FOR ROLE auth_migrator IN SCHEMA auth GRANT USAGE, SELECT ON SEQUENCES TO auth_app;

-- notification-service: stores, reads and (retention) deletes notifications.
CREATE SCHEMA IF NOT EXISTS notification AUTHORIZATION notification_migrator;
GRANT USAGE ON SCHEMA notification TO notification_app;
ALTER DEFAULT PRIVILEGES FOR ROLE notification_migrator IN SCHEMA notification
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO notification_app;
ALTER DEFAULT PRIVILEGES FOR ROLE notification_migrator IN SCHEMA notification
    GRANT USAGE, SELECT ON SEQUENCES TO notification_app;

-- history-service: an append-only store. Its runtime role reads and appends, never updates or deletes; the two
-- running-total tables it upserts get UPDATE from the service's own R__runtime_role_grants.sql, table by table.
CREATE SCHEMA IF NOT EXISTS history AUTHORIZATION history_migrator;
-- its migrations need pg_trgm and btree_gin (V8), which only a role with CREATE on the database may add: added
-- here, once
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA history;
CREATE EXTENSION IF NOT EXISTS btree_gin WITH SCHEMA history;
GRANT USAGE ON SCHEMA history TO history_app;
ALTER DEFAULT PRIVILEGES FOR ROLE history_migrator IN SCHEMA history GRANT SELECT, INSERT ON TABLES TO history_app;
ALTER DEFAULT PRIVILEGES FOR ROLE history_migrator IN SCHEMA history GRANT USAGE, SELECT ON SEQUENCES TO history_app;
