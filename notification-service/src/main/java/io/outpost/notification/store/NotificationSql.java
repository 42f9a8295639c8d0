package io.outpost.notification.store;

/**
 * Every statement notification-service sends PostgreSQL, in one place: what each does and why it is shaped so is
 * said beside it. The schema is the Flyway migrations' ({@code db/migration}).
 */
final class NotificationSql {

    /**
     * A whole batch in one statement (one round trip, its own transaction): count each player's rows, bump their
     * {@code player_cursor} rows (locked in player order until commit), number the rows from the bumped values
     * in batch order, insert them skipping repeated ids. The {@code notification_stored} trigger sends the NOTIFY.
     * {@code stored_at} is read after the player's row lock is held, so it grows with the sequence within a player
     * and the retention purge, which deletes by it, always removes a prefix. A row skipped as a repeat whose content
     * ({@code message}, {@code svc_url}, {@code custom_data} as JSON, {@code etag}) differs from the stored one or
     * from its first occurrence in the batch fails the whole statement ({@code refuse_conflicting_id}, V6): a data
     * exception, which the ingest isolates and dead-letters. Only skipped rows are compared, so a batch without
     * repeats pays nothing for it.
     */
    static final String INSERT_BATCH = """
            WITH batch AS (
                SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                                     $7::timestamptz[]) WITH ORDINALITY AS r(p, i, m, u, c, e, t, ord)),
            counts AS (SELECT p, count(*) AS n FROM batch GROUP BY p),
            bumped AS (
                INSERT INTO notification.player_cursor AS pc (player_uuid, last_seq)
                SELECT p, n FROM counts ORDER BY p
                ON CONFLICT (player_uuid) DO UPDATE SET last_seq = pc.last_seq + EXCLUDED.last_seq
                RETURNING player_uuid, last_seq),
            numbered AS (SELECT batch.*, row_number() OVER (PARTITION BY p ORDER BY ord) AS rn FROM batch),
            inserted AS (
            INSERT INTO notification.notification
                (player_uuid, seq, notification_id, message, svc_url, custom_data, etag, created, stored_at)
            SELECT n.p, b.last_seq - c.n + n.rn, n.i, n.m, n.u, n.c::json, n.e, n.t, clock_timestamp()
            FROM numbered n JOIN counts c ON c.p = n.p JOIN bumped b ON b.player_uuid = n.p
            ORDER BY n.p, n.rn
            ON CONFLICT (player_uuid, notification_id) DO NOTHING
            RETURNING player_uuid, seq, notification_id),
            skipped AS (
                SELECT n.* FROM numbered n JOIN counts c ON c.p = n.p JOIN bumped b ON b.player_uuid = n.p
                WHERE NOT EXISTS (SELECT 1 FROM inserted i
                                  WHERE i.player_uuid = n.p AND i.seq = b.last_seq - c.n + n.rn)),
            conflicts AS (
                SELECT notification.refuse_conflicting_id(s.p, s.i) AS refused FROM skipped s
                WHERE EXISTS (SELECT 1 FROM notification.notification o
                              WHERE o.player_uuid = s.p AND o.notification_id = s.i
                                AND (o.message, o.svc_url, o.custom_data::jsonb, o.etag)
                                    IS DISTINCT FROM (s.m, s.u, s.c::jsonb, s.e))
                   OR EXISTS (SELECT 1 FROM numbered f
                              WHERE f.p = s.p AND f.i = s.i AND f.ord < s.ord
                                AND (f.m, f.u, f.c::jsonb, f.e) IS DISTINCT FROM (s.m, s.u, s.c::jsonb, s.e)))
            SELECT b.player_uuid, b.last_seq - c.n + 1 AS first_seq, b.last_seq, i.seq, i.notification_id
            FROM bumped b JOIN counts c ON c.p = b.player_uuid LEFT JOIN inserted i ON i.player_uuid = b.player_uuid
            WHERE (SELECT count(refused) FROM conflicts) = 0
            ORDER BY b.player_uuid, i.seq""";
    static final String AFTER = """
            SELECT seq, notification_id, message, svc_url, custom_data::text AS custom_data, etag, created
            FROM notification.notification WHERE player_uuid = $1 AND seq > $2 ORDER BY seq LIMIT $3""";
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
                   n.custom_data::text AS custom_data, n.etag, n.created
            FROM pos LEFT JOIN LATERAL (
                SELECT * FROM notification.notification
                WHERE player_uuid = pos.p AND seq > CASE
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
                   n.created
            FROM unnest($1::uuid[], $2::bigint[], $3::int[]) WITH ORDINALITY AS w(p, after, lim, k)
            CROSS JOIN LATERAL (
                SELECT * FROM notification.notification WHERE player_uuid = w.p AND seq > w.after ORDER BY seq
                LIMIT w.lim) n
            ORDER BY w.k, n.seq""";
    /** The last sequence handed out to each of the players $1 (players never notified are absent). */
    static final String HEADS = """
            SELECT player_uuid, last_seq FROM notification.player_cursor WHERE player_uuid = ANY($1)""";

    /**
     * Of notifications about to be published for player $1 (ids $2, messages $3, urls $4, custom_data $5, etags $6),
     * the positions (1-based) of those whose id is stored for the player, or given earlier in the same list, with
     * other content — compared as the ingest's insert compares them ({@code custom_data} as JSON).
     */
    static final String CONFLICTS = """
            WITH b AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
                           WITH ORDINALITY AS b(i, m, u, c, e, ord))
            SELECT b.ord FROM b
            WHERE EXISTS (SELECT 1 FROM notification.notification o
                          WHERE o.player_uuid = $1 AND o.notification_id = b.i
                            AND (o.message, o.svc_url, o.custom_data::jsonb, o.etag)
                                IS DISTINCT FROM (b.m, b.u, b.c::jsonb, b.e))
               OR EXISTS (SELECT 1 FROM b f
                          WHERE f.i = b.i AND f.ord < b.ord
                            AND (f.m, f.u, f.c::jsonb, f.e) IS DISTINCT FROM (b.m, b.u, b.c::jsonb, b.e))
            ORDER BY b.ord""";

    private NotificationSql() {
    }
}
