-- Announcements name where the notifications were stored from: "<application_name>|<player>:<first>:<last>,…".
-- The instance whose ingest stored them already answers its own polls from what it stored, so it skips its
-- own announcements (which may reach it before its own insert's result does) instead of querying for them.
CREATE OR REPLACE FUNCTION notification.announce_stored() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    origin text := coalesce(current_setting('application_name', true), '');
    players text;
BEGIN
    FOR players IN
        SELECT string_agg(player_uuid::text || ':' || first_seq || ':' || last_seq, ',')
        FROM (SELECT player_uuid, min(seq) AS first_seq, max(seq) AS last_seq,
                     (row_number() OVER () - 1) / 100 AS part
              FROM stored GROUP BY player_uuid) AS per_player
        GROUP BY part
    LOOP
        PERFORM pg_notify('outpost_notification_stored', origin || '|' || players);
    END LOOP;
    RETURN NULL;
END
$$;
