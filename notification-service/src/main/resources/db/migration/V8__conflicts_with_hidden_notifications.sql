-- A notification_id names one notification of a player whatever became of it: deleted, expired, or emptied by the
-- purge, it is still compared with a notification that reuses it (docs/notifications.md, "Repeated ids"). The purge
-- empties a hidden notification's content, so it first keeps a digest of it; rows emptied before this migration have
-- none, and any reuse of their ids is refused.
ALTER TABLE notification.notification ADD COLUMN content_digest bytea;

-- The digest of a notification's content: message, svc_url, custom_data (as jsonb: key order and spacing do not
-- matter) and etag, as one JSON array (so that no two contents share an encoding).
CREATE FUNCTION notification.content_digest(m text, u text, c json, e text) RETURNS bytea
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT sha256(convert_to(jsonb_build_array(m, u, c::jsonb, e)::text, 'UTF8'))
$$;

-- True when a stored notification (emptied or not: its digest, or its content) differs from the content (m, u, c,
-- e) of one that reuses its id. A notification that still holds its content is compared as JSON (10 and 10.0 are
-- the same); an emptied one by its digest, in which numbers stay as they were written.
CREATE FUNCTION notification.other_content(emptied boolean, digest bytea, sm text, su text, sc json, se text,
                                           m text, u text, c json, e text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN emptied THEN digest IS DISTINCT FROM notification.content_digest(m, u, c, e)
                ELSE (sm, su, sc::jsonb, se) IS DISTINCT FROM (m, u, c::jsonb, e) END
$$;
