-- A notification_id repeated for a player is the same notification sent again (stored once) only when its content is
-- the same; with other content it is refused, never silently dropped (docs/notifications.md, "Repeated ids"). The
-- ingest's insert calls this for such a row, so that the whole statement fails as a data exception (class 23) and
-- the ingest isolates the record and dead-letters it with this message.
CREATE FUNCTION notification.refuse_conflicting_id(player uuid, id text) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'unique_violation',
        MESSAGE = format('notification_id_conflict: notification_id %s of player %s is already stored with other content',
                         id, player);
END
$$;
