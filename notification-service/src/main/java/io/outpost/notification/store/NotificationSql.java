package io.outpost.notification.store;

/**
 * Every statement notification-service sends PostgreSQL, in one place: what each does and why it is shaped so is
 * said beside it. The schema is the Flyway migrations' ({@code db/migration}).
 */
final class NotificationSql {

    /**
     * A whole batch in one statement (one round trip, its own transaction): count each player's rows, bump their
     * {@code player_cursor} rows (locked in player order until commit), number the rows from the bumped values
     * in batch order, insert the first occurrence of each id, skipping ids the player has. The
     * {@code notification_stored} trigger sends the NOTIFY. {@code stored_at} is read after the player's row lock is
     * held, so it grows with the sequence within a player and the retention purge, which deletes by it, always removes
     * a prefix. A repeat whose content ({@code message}, {@code svc_url}, {@code custom_data} as JSON, {@code etag})
     * differs from the stored one — deleted, expired or emptied by the purge alike ({@code other_content}, V8) — or
     * from its first occurrence in the batch fails the whole statement ({@code refuse_conflicting_id}, V6): a data
     * exception, which the ingest isolates and dead-letters. The stored one is compared in the insert's
     * {@code ON CONFLICT … DO UPDATE … WHERE}, which reads the row as last committed (locked, never updated), not as
     * the statement's snapshot saw it: an insert of the same id by a concurrent statement, which {@code DO NOTHING}
     * would skip after waiting for it, is compared too. Only the repeats are compared ({@code skipped} is
     * materialized so that the planner cannot fold the comparison with the first occurrences into a scan of the whole
     * batch, which made a batch of 2,000 cost ≈ 0.9 s), each with one index probe and one hash look-up, so a batch
     * without repeats pays nothing for it and a replayed batch pays linearly.
     */
    static final String INSERT_BATCH = """
            WITH batch AS (
                SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                                     $7::timestamptz[], $8::timestamptz[]) WITH ORDINALITY AS r(p, i, m, u, c, e, t, x, ord)),
            counts AS (SELECT p, count(*) AS n FROM batch GROUP BY p),
            bumped AS (
                INSERT INTO notification.player_cursor AS pc (player_uuid, last_seq)
                SELECT p, n FROM counts ORDER BY p
                ON CONFLICT (player_uuid) DO UPDATE SET last_seq = pc.last_seq + EXCLUDED.last_seq
                RETURNING player_uuid, last_seq),
            numbered AS (SELECT batch.*, row_number() OVER (PARTITION BY p ORDER BY ord) AS rn FROM batch),
            firsts AS (SELECT DISTINCT ON (p, i) p, i, m, u, c, e, ord FROM batch ORDER BY p, i, ord),
            inserted AS (
            INSERT INTO notification.notification AS o
                (player_uuid, seq, notification_id, message, svc_url, custom_data, etag, created, expires_at, stored_at)
            SELECT n.p, b.last_seq - c.n + n.rn, n.i, n.m, n.u, n.c::json, n.e, n.t, n.x, clock_timestamp()
            FROM numbered n JOIN counts c ON c.p = n.p JOIN bumped b ON b.player_uuid = n.p
                 JOIN firsts f ON f.p = n.p AND f.i = n.i AND f.ord = n.ord
            ORDER BY n.p, n.rn
            ON CONFLICT (player_uuid, notification_id) DO UPDATE SET emptied = o.emptied
            WHERE CASE WHEN notification.other_content(o.emptied, o.content_digest, o.message, o.svc_url,
                                                       o.custom_data, o.etag, EXCLUDED.message, EXCLUDED.svc_url,
                                                       EXCLUDED.custom_data, EXCLUDED.etag)
                       THEN notification.refuse_conflicting_id(EXCLUDED.player_uuid, EXCLUDED.notification_id) = 0
                       ELSE false END
            RETURNING player_uuid, seq, notification_id),
            skipped AS MATERIALIZED (
                SELECT n.* FROM numbered n JOIN counts c ON c.p = n.p JOIN bumped b ON b.player_uuid = n.p
                WHERE NOT EXISTS (SELECT 1 FROM inserted i
                                  WHERE i.player_uuid = n.p AND i.seq = b.last_seq - c.n + n.rn)),
            conflicts AS (
                SELECT notification.refuse_conflicting_id(s.p, s.i) AS refused
                FROM skipped s JOIN firsts f ON f.p = s.p AND f.i = s.i
                WHERE (f.m, f.u, f.c::jsonb, f.e) IS DISTINCT FROM (s.m, s.u, s.c::jsonb, s.e))
            SELECT b.player_uuid, b.last_seq - c.n + 1 AS first_seq, b.last_seq, i.seq, i.notification_id
            FROM bumped b JOIN counts c ON c.p = b.player_uuid LEFT JOIN inserted i ON i.player_uuid = b.player_uuid
            WHERE (SELECT count(refused) FROM conflicts) = 0
            ORDER BY b.player_uuid, i.seq""";
    /**
     * What a player may read: not deleted, not expired. Every read of notifications filters by it; the cursor
     * lookups do not, so that a cursor naming a hidden notification still resumes right after it.
     */
    private static final String VISIBLE = "deleted_at IS NULL AND (expires_at IS NULL OR expires_at > now())";
    /** The columns of a notification as a player reads it. */
    static final String COLUMNS = "seq, notification_id, message, svc_url, custom_data::text AS custom_data, etag, "
            + "created, expires_at";
    static final String AFTER = "SELECT " + COLUMNS + " FROM notification.notification WHERE player_uuid = $1 "
            + "AND seq > $2 AND " + VISIBLE + " ORDER BY seq LIMIT $3";
    /**
     * Where each of several new polls starts and what follows, in one round trip and one snapshot: for each
     * (player $1, cursor as an id of the player's $2, cursor as a position token $3, earliest $4, limit $5), in
     * order ($k), the sequence the cursor names, the player's last sequence, and up to the limit of notifications
     * after the start (the same rule as {@code Cursors.resolve}). A poll without notifications gives one row with
     * a null {@code seq}.
     */
    static final String START_MANY = """
            WITH w AS (
                SELECT * FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::bool[], $5::int[])
                    WITH ORDINALITY AS w(p, id, tok, earliest, lim, k)),
            pos AS (
                SELECT w.*,
                       (SELECT seq FROM notification.notification WHERE player_uuid = w.p AND notification_id = w.id)
                           AS named_seq,
                       COALESCE((SELECT last_seq FROM notification.player_cursor WHERE player_uuid = w.p), 0) AS last_seq
                FROM w)
            SELECT pos.k, pos.named_seq, pos.last_seq, n.seq, n.notification_id, n.message, n.svc_url,
                   n.custom_data::text AS custom_data, n.etag, n.created, n.expires_at
            FROM pos LEFT JOIN LATERAL (
                SELECT * FROM notification.notification
                WHERE player_uuid = pos.p AND deleted_at IS NULL AND (expires_at IS NULL OR expires_at > now())
                  AND seq > CASE
                    WHEN pos.named_seq IS NOT NULL THEN pos.named_seq
                    WHEN pos.tok IS NOT NULL AND pos.tok <= pos.last_seq THEN pos.tok
                    WHEN pos.earliest THEN 0
                    ELSE pos.last_seq END
                ORDER BY seq LIMIT pos.lim) n ON true
            ORDER BY pos.k, n.seq""";
    /**
     * Up to $2 players' oldest notifications: for each player with a notification stored before $1, everything up
     * to and including the last such one in its sequence — always a prefix, never a hole in the middle.
     */
    static final String PURGE = """
            WITH old AS (
                SELECT player_uuid, max(seq) AS upto FROM notification.notification
                WHERE stored_at < $1 GROUP BY player_uuid LIMIT $2)
            DELETE FROM notification.notification n USING old
            WHERE n.player_uuid = old.player_uuid AND n.seq <= old.upto""";
    /** For each (player $1, after $2, limit $3): that many of the player's notifications after that sequence. */
    static final String AFTER_MANY = """
            SELECT w.k, n.seq, n.notification_id, n.message, n.svc_url, n.custom_data::text AS custom_data, n.etag,
                   n.created, n.expires_at
            FROM unnest($1::uuid[], $2::bigint[], $3::int[]) WITH ORDINALITY AS w(p, after, lim, k)
            CROSS JOIN LATERAL (
                SELECT * FROM notification.notification
                WHERE player_uuid = w.p AND seq > w.after AND deleted_at IS NULL
                  AND (expires_at IS NULL OR expires_at > now())
                ORDER BY seq LIMIT w.lim) n
            ORDER BY w.k, n.seq""";
    /** The last sequence handed out to each of the players $1 (players never notified are absent). */
    static final String HEADS = """
            SELECT player_uuid, last_seq FROM notification.player_cursor WHERE player_uuid = ANY($1)""";

    /**
     * Of notifications about to be published for player $1 (ids $2, messages $3, urls $4, custom_data $5, etags $6),
     * the positions (1-based) of those whose id the player has — deleted, expired or emptied alike — or that are
     * given earlier in the same list, with other content, compared as the ingest's insert compares them.
     */
    static final String CONFLICTS = """
            WITH b AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
                           WITH ORDINALITY AS b(i, m, u, c, e, ord))
            SELECT b.ord FROM b
            WHERE EXISTS (SELECT 1 FROM notification.notification o
                          WHERE o.player_uuid = $1 AND o.notification_id = b.i
                            AND notification.other_content(o.emptied, o.content_digest, o.message, o.svc_url,
                                                           o.custom_data, o.etag, b.m, b.u, b.c::json, b.e))
               OR EXISTS (SELECT 1 FROM b f
                          WHERE f.i = b.i AND f.ord < b.ord
                            AND (f.m, f.u, f.c::jsonb, f.e) IS DISTINCT FROM (b.m, b.u, b.c::jsonb, b.e))
            ORDER BY b.ord""";
    /**
     * Of one notification (message $3, url $4, custom_data $5, etag $6) about to be published for players $1 with
     * ids $2 (a fan-out), the first position (1-based) whose id that player has with other content, if any: one
     * index probe per player.
     */
    static final String FANNED_CONFLICT = """
            SELECT w.ord FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS w(p, i, ord)
            JOIN notification.notification o ON o.player_uuid = w.p AND o.notification_id = w.i
            WHERE notification.other_content(o.emptied, o.content_digest, o.message, o.svc_url, o.custom_data, o.etag,
                                             $3, $4, $5::text::json, $6)
            ORDER BY w.ord LIMIT 1""";

    /**
     * A page of player $1, newest first: at most $6 visible notifications at or below the start — the sequence of
     * notification $2 (0 when the player has none so named) or, without $2, the sequence $3 — and above the bound —
     * the sequence of notification $4 (0 when none) or, without $4, $5 — with the player's read marker on every
     * row (0: nothing read). One indexed range of the primary key, whatever the depth.
     */
    static final String PAGE = """
            WITH bounds AS (
                SELECT CASE WHEN $2::text IS NULL THEN $3::bigint
                            ELSE COALESCE((SELECT seq FROM notification.notification
                                           WHERE player_uuid = $1 AND notification_id = $2), 0) END AS upto,
                       CASE WHEN $4::text IS NULL THEN $5::bigint
                            ELSE COALESCE((SELECT seq FROM notification.notification
                                           WHERE player_uuid = $1 AND notification_id = $4), 0) END AS above,
                       COALESCE((SELECT seq FROM notification.read_marker WHERE player_uuid = $1), 0) AS read_seq)
            SELECT bounds.read_seq, n.seq, n.notification_id, n.message, n.svc_url, n.custom_data, n.etag, n.created,
                   n.expires_at
            FROM bounds LEFT JOIN LATERAL (
                SELECT seq, notification_id, message, svc_url, custom_data::text AS custom_data, etag, created,
                       expires_at
                FROM notification.notification
                WHERE player_uuid = $1 AND seq <= bounds.upto AND seq > bounds.above AND deleted_at IS NULL
                  AND (expires_at IS NULL OR expires_at > now())
                ORDER BY seq DESC LIMIT $6) n ON true
            ORDER BY n.seq DESC""";
    /** Notification $2 of player $1, when the player may read it. */
    static final String BY_ID = "SELECT " + COLUMNS + " FROM notification.notification WHERE player_uuid = $1 "
            + "AND notification_id = $2 AND " + VISIBLE;
    /** Deletes notification $2 of player $1 (kept as the cursor's place: docs/notifications.md); no row: none such. */
    static final String DELETE = """
            UPDATE notification.notification SET deleted_at = COALESCE(deleted_at, now())
            WHERE player_uuid = $1 AND notification_id = $2 RETURNING seq""";
    /**
     * Player $1 has read up to notification $2: its read marker moves there, or stays where it is when it is already
     * past it; no row: the player has no such notification.
     */
    static final String MARK_READ = """
            INSERT INTO notification.read_marker AS rm (player_uuid, seq, notification_id)
            SELECT player_uuid, seq, notification_id FROM notification.notification
            WHERE player_uuid = $1 AND notification_id = $2
            ON CONFLICT (player_uuid) DO UPDATE SET
                seq = GREATEST(rm.seq, EXCLUDED.seq),
                notification_id = CASE WHEN EXCLUDED.seq > rm.seq THEN EXCLUDED.notification_id
                                       ELSE rm.notification_id END,
                updated_at = now()
            RETURNING seq""";
    /**
     * Up to $1 deleted or expired notifications lose their content, keeping its digest (a reuse of the id is still
     * compared: V8); their rows stay (the cursor's place) until retention removes them with the rest of the player's
     * oldest notifications.
     */
    static final String EMPTY_HIDDEN = """
            UPDATE notification.notification SET message = '', svc_url = NULL, custom_data = NULL, etag = NULL,
                                                 emptied = true,
                                                 content_digest = notification.content_digest(message, svc_url,
                                                                                              custom_data, etag)
            WHERE ctid IN (SELECT ctid FROM notification.notification
                           WHERE (expires_at IS NOT NULL OR deleted_at IS NOT NULL) AND NOT emptied
                             AND (deleted_at IS NOT NULL OR expires_at <= now())
                           LIMIT $1)""";

    private NotificationSql() {
    }
}
