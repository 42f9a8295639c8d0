-- The auth schema is created by Flyway (quarkus.flyway.create-schemas) and owned by auth-service alone:
-- no other service reads or writes it. Tables arrive with the migrations that need them.
COMMENT ON SCHEMA auth IS 'Outpost auth-service';
