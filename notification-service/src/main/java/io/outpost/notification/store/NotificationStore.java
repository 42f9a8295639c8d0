package io.outpost.notification.store;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.outpost.model.RawJsonObject;
import io.outpost.model.api.Notification;
import io.outpost.support.store.StoreDeadline;
import io.outpost.support.store.Transactions;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The notification table, through the reactive PostgreSQL client (every path here is hot: ingest batches, and
 * one or two queries per long poll).
 *
 * <p>Each player has a monotonic sequence. A batch bumps the {@code player_cursor} row of each of its players
 * (row lock until commit), so one player's transactions commit in sequence order, and inserts its rows with
 * {@code ON CONFLICT DO NOTHING} (a re-delivered or repeated id is stored once; it leaves a gap, never a
 * duplicate). A trigger sends a {@code NOTIFY} naming the players, delivered to every replica at commit.
 */
@ApplicationScoped
public class NotificationStore {

    /** The PostgreSQL channel on which stored notifications are announced (V3__announce_stored.sql). */
    public static final String WAKE_CHANNEL = "outpost_notification_stored";

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
    private static final String INSERT_BATCH = """
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
    private static final String AFTER = """
            SELECT seq, notification_id, message, svc_url, custom_data::text AS custom_data, etag, created
            FROM notification.notification WHERE player_uuid = $1 AND seq > $2 ORDER BY seq LIMIT $3""";
    /**
     * Where each of several new polls starts and what follows, in one round trip and one snapshot: for each
     * (player $1, cursor as an id of the player's $2, cursor as a position token $3, earliest $4, limit $5), in
     * order ($k), the sequence the cursor names, the player's last sequence, and up to the limit of notifications
     * after the start (the same rule as {@code Cursors.resolve}). A poll without notifications gives one row with
     * a null {@code seq}.
     */
    private static final String START_MANY = """
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
    private static final String PURGE = """
            WITH old AS (
                SELECT player_uuid, max(seq) AS upto FROM notification.notification
                WHERE stored_at < $1 GROUP BY player_uuid LIMIT $2)
            DELETE FROM notification.notification n USING old
            WHERE n.player_uuid = old.player_uuid AND n.seq <= old.upto""";
    /** For each (player $1, after $2, limit $3): that many of the player's notifications after that sequence. */
    private static final String AFTER_MANY = """
            SELECT w.k, n.seq, n.notification_id, n.message, n.svc_url, n.custom_data::text AS custom_data, n.etag,
                   n.created
            FROM unnest($1::uuid[], $2::bigint[], $3::int[]) WITH ORDINALITY AS w(p, after, lim, k)
            CROSS JOIN LATERAL (
                SELECT * FROM notification.notification WHERE player_uuid = w.p AND seq > w.after ORDER BY seq
                LIMIT w.lim) n
            ORDER BY w.k, n.seq""";
    /** The last sequence handed out to each of the players $1 (players never notified are absent). */
    private static final String HEADS = """
            SELECT player_uuid, last_seq FROM notification.player_cursor WHERE player_uuid = ANY($1)""";

    private final Pool pool;
    private final Pool ingestPool;
    private final StoreDeadline deadline;
    private volatile Stored listener = Stored.NONE;
    private final Counter startQueries;
    private final Counter afterQueries;
    private final Counter afterManyQueries;
    private final Counter headQueries;
    private final StartBatches starts;

    /**
     * @param pool       reads of the long polls
     * @param ingestPool writes of the ingest, apart so that a burst of polls never delays storing (and waking)
     */
    @Inject
    public NotificationStore(Pool pool, @Identifier(DatabaseConnections.INGEST) Pool ingestPool, StoreDeadline deadline,
            MeterRegistry meters) {
        this.pool = pool;
        this.ingestPool = ingestPool;
        this.deadline = deadline;
        this.startQueries = queries(meters, "start");
        this.afterQueries = queries(meters, "after");
        this.afterManyQueries = queries(meters, "after_many");
        this.headQueries = queries(meters, "heads");
        this.starts = new StartBatches(this, deadline);
    }

    /** One pool for everything (a second replica in tests). */
    public NotificationStore(Pool pool, StoreDeadline deadline) {
        this(pool, pool, deadline, new SimpleMeterRegistry());
    }

    /** Told of what this store's inserts did, once committed (the polls held here). */
    public interface Stored {
        Stored NONE = new Stored() {
            @Override
            public void stored(StoredBatch batch) {
            }

            @Override
            public void failed(Throwable failure) {
            }
        };

        /** The batch committed. */
        void stored(StoredBatch batch);

        /** An insert failed — and may still have committed (its answer lost). */
        void failed(Throwable failure);
    }

    /** Who is told of inserts ({@link Stored}); one listener. */
    public void listen(Stored listener) {
        this.listener = listener;
    }

    /** Reads of the poll path, by kind: how many round trips polls cost (docs/notifications.md). */
    private static Counter queries(MeterRegistry meters, String kind) {
        return Counter.builder("outpost.notification.store.queries").tag("query", kind)
                .description("Queries of the long-poll path sent to PostgreSQL, by kind").register(meters);
    }

    /**
     * Stores a batch in one transaction; within a player, in list order. Idempotent. Answers, once committed,
     * what it handed out and inserted per player, and tells the {@link Stored} listener first (the polls held
     * here are answered from it, with no query; this instance skips its own announcements).
     */
    public Uni<StoredBatch> insert(List<NewNotification> batch) {
        if (batch.isEmpty()) {
            return Uni.createFrom().item(StoredBatch.EMPTY);
        }
        int size = batch.size();
        UUID[] players = new UUID[size];
        String[] ids = new String[size];
        String[] messages = new String[size];
        String[] urls = new String[size];
        String[] data = new String[size];
        String[] etags = new String[size];
        OffsetDateTime[] created = new OffsetDateTime[size];
        for (int i = 0; i < size; i++) {
            NewNotification n = batch.get(i);
            players[i] = n.player();
            ids[i] = n.notificationId();
            messages[i] = n.message();
            urls[i] = n.svcUrl();
            data[i] = n.customDataJson();
            etags[i] = n.etag();
            created[i] = n.created().atOffset(ZoneOffset.UTC);
        }
        Tuple args = Tuple.tuple().addArrayOfUUID(players).addArrayOfString(ids).addArrayOfString(messages)
                .addArrayOfString(urls).addArrayOfString(data).addArrayOfString(etags).addArrayOfOffsetDateTime(created);
        // cancelled in PostgreSQL when the ingest gives up on it (its store timeout), as history's appends are
        return Transactions.withConnection(ingestPool, c -> c.preparedQuery(INSERT_BATCH).execute(args))
                .map(rows -> stored(batch, rows))
                .invoke(stored -> listener.stored(stored)).onFailure().invoke(failure -> listener.failed(failure))
                // given up on: it may have committed all the same, unannounced here, as a failed one may
                .onCancellation().invoke(() -> listener.failed(new CancellationException("insert abandoned")));
    }

    /** The batch's notifications the rows say were inserted (a repeated id: its first one in the batch). */
    private StoredBatch stored(List<NewNotification> batch, RowSet<Row> rows) {
        Map<String, NewNotification> byId = new HashMap<>(batch.size() * 2);
        for (NewNotification n : batch) {
            byId.putIfAbsent(n.player() + "/" + n.notificationId(), n);
        }
        Map<UUID, StoredBatch.Player> players = new HashMap<>();
        UUID current = null;
        long first = 0;
        long last = 0;
        List<StoredBatch.Inserted> inserted = null;
        for (Row row : rows) {
            UUID player = row.getUUID("player_uuid");
            if (!player.equals(current)) {
                if (current != null) {
                    players.put(current, new StoredBatch.Player(first, last, inserted));
                }
                current = player;
                first = row.getLong("first_seq");
                last = row.getLong("last_seq");
                inserted = new ArrayList<>();
            }
            Long seq = row.getLong("seq");
            if (seq != null) {
                inserted.add(new StoredBatch.Inserted(seq, byId.get(player + "/" + row.getString("notification_id"))));
            }
        }
        if (current != null) {
            players.put(current, new StoredBatch.Player(first, last, inserted));
        }
        return new StoredBatch(players);
    }

    /**
     * Up to {@code limit} of the player's notifications after sequence {@code seq}, oldest first. Like every read
     * here, bounded by the query deadline ({@link StoreDeadline}).
     */
    public Uni<List<StoredNotification>> after(UUID player, long seq, int limit) {
        afterQueries.increment();
        return deadline.query(pool, c -> c.preparedQuery(AFTER).execute(Tuple.of(player, seq, limit))).map(rows -> {
            List<StoredNotification> page = new ArrayList<>(rows.size());
            for (Row row : rows) {
                page.add(stored(row));
            }
            return page;
        });
    }

    /** Up to {@code limit} of {@code player}'s notifications after sequence {@code after}. */
    public record Want(UUID player, long after, int limit) {
    }

    /**
     * What several polls need, in one query (the wake-up of many players costs one round trip): for each want,
     * in order, its notifications oldest first.
     */
    public Uni<List<List<StoredNotification>>> after(List<Want> wants) {
        UUID[] players = new UUID[wants.size()];
        Long[] afters = new Long[wants.size()];
        Integer[] limits = new Integer[wants.size()];
        for (int i = 0; i < wants.size(); i++) {
            players[i] = wants.get(i).player();
            afters[i] = wants.get(i).after();
            limits[i] = wants.get(i).limit();
        }
        afterManyQueries.increment();
        return deadline.query(pool, c -> c.preparedQuery(AFTER_MANY).execute(Tuple.of(players, afters, limits))).map(rows -> {
            List<List<StoredNotification>> found = new ArrayList<>(wants.size());
            for (int i = 0; i < wants.size(); i++) {
                found.add(new ArrayList<>());
            }
            for (Row row : rows) {
                found.get(row.getLong("k").intValue() - 1).add(stored(row));
            }
            return found;
        });
    }

    /** What a new poll needs: where its cursor points, and the first page after its start. */
    public record Start(CursorLookup lookup, List<StoredNotification> page) {
    }

    /** A new poll's cursor: as a notification id (may be null) and as a position token (null when not one). */
    public record StartWant(UUID player, String notificationId, Long token, boolean earliest, int limit) {
    }

    /**
     * Resolves a poll's cursor and reads the first page after it. New polls are looked up together
     * ({@link StartBatches}): one query for all that arrive while others run, so a burst of new polls costs a few
     * queries, not one each. Bounded by the query deadline like every read here.
     *
     * @param notificationId the cursor as a notification id (may be null)
     * @param token          the cursor as a position token (null when it is not one)
     */
    public Uni<Start> start(UUID player, String notificationId, Long token, boolean earliest, int limit) {
        return starts.start(new StartWant(player, notificationId, token, earliest, limit));
    }

    /** One query for several new polls: for each want, in order, its start. */
    Uni<List<Start>> start(List<StartWant> wants) {
        int size = wants.size();
        UUID[] players = new UUID[size];
        String[] ids = new String[size];
        Long[] tokens = new Long[size];
        Boolean[] earliest = new Boolean[size];
        Integer[] limits = new Integer[size];
        for (int i = 0; i < size; i++) {
            StartWant want = wants.get(i);
            players[i] = want.player();
            ids[i] = want.notificationId();
            tokens[i] = want.token();
            earliest[i] = want.earliest();
            limits[i] = want.limit();
        }
        startQueries.increment();
        return deadline.query(pool, c -> c.preparedQuery(START_MANY).execute(Tuple.of(players, ids, tokens, earliest, limits)))
                .map(rows -> {
                    List<Start> starts = new ArrayList<>(size);
                    List<StoredNotification> page = null;
                    for (Row row : rows) {
                        int k = row.getLong("k").intValue() - 1;
                        if (k == starts.size()) {
                            page = new ArrayList<>();
                            starts.add(new Start(new CursorLookup(row.getLong("named_seq"), row.getLong("last_seq")), page));
                        }
                        if (row.getLong("seq") != null) {
                            page.add(stored(row));
                        }
                    }
                    if (starts.size() != size) {
                        throw new IllegalStateException("start query answered " + starts.size() + " of " + size + " polls");
                    }
                    return starts;
                });
    }

    /** The last sequence handed out to each of {@code players}; players never notified are absent. */
    public Uni<Map<UUID, Long>> heads(List<UUID> players) {
        headQueries.increment();
        return deadline.query(pool, c -> c.preparedQuery(HEADS).execute(Tuple.of(players.toArray(UUID[]::new))))
                .map(rows -> {
                    Map<UUID, Long> heads = new HashMap<>(rows.size() * 2);
                    for (Row row : rows) {
                        heads.put(row.getUUID("player_uuid"), row.getLong("last_seq"));
                    }
                    return heads;
                });
    }

    /**
     * For up to {@code players} players, deletes their notifications up to the last one stored before
     * {@code cutoff} (a prefix of each player's sequence); answers how many notifications were deleted.
     */
    public Uni<Integer> purgeStoredBefore(Instant cutoff, int players) {
        return pool.preparedQuery(PURGE).execute(Tuple.of(cutoff.atOffset(ZoneOffset.UTC), players))
                .map(rows -> rows.rowCount());
    }

    private StoredNotification stored(Row row) {
        return new StoredNotification(row.getLong("seq"), new Notification(row.getString("message"),
                row.getString("svc_url"), customData(row.getString("custom_data")), row.getString("etag"),
                row.getString("notification_id"), row.getOffsetDateTime("created").toInstant()));
    }

    /** {@code custom_data} as the store keeps it (a {@code json} column: the text it was given), passed through. */
    private static RawJsonObject customData(String json) {
        return json == null ? null : new RawJsonObject(json);
    }
}
