-- Wake-ups come from the table itself: whatever stores notifications (any replica's ingest, an operator's
-- INSERT) announces their players on the channel every instance LISTENs on, at commit. One NOTIFY per 200
-- players keeps each payload under PostgreSQL's 8000-byte limit. Rows skipped as repeats announce nothing.
CREATE FUNCTION notification.announce_stored() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    players text;
BEGIN
    FOR players IN
        SELECT string_agg(player_uuid::text, ',')
        FROM (SELECT player_uuid, (row_number() OVER () - 1) / 200 AS part
              FROM (SELECT DISTINCT player_uuid FROM stored) AS distinct_players) AS numbered
        GROUP BY part
    LOOP
        PERFORM pg_notify('outpost_notification_stored', players);
    END LOOP;
    RETURN NULL;
END
$$;

CREATE TRIGGER notification_stored AFTER INSERT ON notification.notification
    REFERENCING NEW TABLE AS stored FOR EACH STATEMENT EXECUTE FUNCTION notification.announce_stored();
