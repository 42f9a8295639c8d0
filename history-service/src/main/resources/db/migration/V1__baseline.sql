-- The history schema is created by Flyway (quarkus.flyway.create-schemas) and owned by history-service alone:
-- no other service reads or writes it. Tables arrive with the migrations that need them.
COMMENT ON SCHEMA history IS 'Outpost history-service';
