-- Retention counts from when a notification was stored, not from the producer's `created` (which may be any
-- time, so purging by it could delete a notification in the middle of a player's sequence and break a cursor).
-- Rows stored before this migration get the migration's time (no table rewrite), so none is purged early.
ALTER TABLE notification.notification ADD COLUMN stored_at timestamptz NOT NULL DEFAULT now();
-- BRIN: rows arrive in stored_at order, so a tiny block-range index finds the old ones at almost no cost per insert
CREATE INDEX notification_stored_at ON notification.notification USING brin (stored_at);
DROP INDEX notification.notification_created;

-- Wake-ups name each player with the first and last sequence the statement stored for it
-- ("<player>:<first>:<last>", comma-separated), so an instance can tell at once whether a held poll already
-- has them (no query) and a poll that is starting knows what arrived meanwhile. 100 players per NOTIFY keep the
-- payload under PostgreSQL's 8000-byte limit.
CREATE OR REPLACE FUNCTION notification.announce_stored() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    players text;
BEGIN
    FOR players IN
        SELECT string_agg(player_uuid::text || ':' || first_seq || ':' || last_seq, ',')
        FROM (SELECT player_uuid, min(seq) AS first_seq, max(seq) AS last_seq,
                     (row_number() OVER () - 1) / 100 AS part
              FROM stored GROUP BY player_uuid) AS per_player
        GROUP BY part
    LOOP
        PERFORM pg_notify('outpost_notification_stored', players);
    END LOOP;
    RETURN NULL;
END
$$;
