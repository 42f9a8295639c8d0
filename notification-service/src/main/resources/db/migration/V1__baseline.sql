-- The notification schema is created by Flyway (quarkus.flyway.create-schemas) and owned by notification-service alone:
-- no other service reads or writes it. Tables arrive with the migrations that need them.
COMMENT ON SCHEMA notification IS 'Outpost notification-service';
