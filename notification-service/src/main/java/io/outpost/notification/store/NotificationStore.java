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

    /** Reads of the poll path and the inbox, by kind: how many round trips reads cost (docs/notifications.md). */
    static Counter queries(MeterRegistry meters, String kind) {
        return Counter.builder("outpost.notification.store.queries").tag("query", kind)
                .description("Reads of the long poll and the inbox sent to PostgreSQL, by kind").register(meters);
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
        Tuple args = Columns.of(batch).uuids(NewNotification::player).strings(NewNotification::notificationId)
                .strings(NewNotification::message).strings(NewNotification::svcUrl)
                .strings(NewNotification::customDataJson).strings(NewNotification::etag)
                .times(n -> n.created().atOffset(ZoneOffset.UTC))
                .times(n -> n.expiresAt() == null ? null : n.expiresAt().atOffset(ZoneOffset.UTC)).tuple();
        // cancelled in PostgreSQL when the ingest gives up on it (its store timeout), as history's appends are
        return Transactions.withConnection(ingestPool,
                c -> c.preparedQuery(NotificationSql.INSERT_BATCH).execute(args))
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
        Tuple args = Tuple.of(player, seq, limit);
        return deadline.query(pool, c -> c.preparedQuery(NotificationSql.AFTER).execute(args)).map(rows -> {
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
        Tuple args = Columns.of(wants).uuids(Want::player).longs(Want::after).ints(Want::limit).tuple();
        afterManyQueries.increment();
        return deadline.query(pool, c -> c.preparedQuery(NotificationSql.AFTER_MANY).execute(args)).map(rows -> {
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
        Tuple args = Columns.of(wants).uuids(StartWant::player).strings(StartWant::notificationId)
                .longs(StartWant::token).booleans(StartWant::earliest).ints(StartWant::limit).tuple();
        startQueries.increment();
        return deadline.query(pool, c -> c.preparedQuery(NotificationSql.START_MANY).execute(args))
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
        Tuple args = Tuple.of(players.toArray(UUID[]::new));
        return deadline.query(pool, c -> c.preparedQuery(NotificationSql.HEADS).execute(args))
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
        return pool.preparedQuery(NotificationSql.PURGE).execute(Tuple.of(cutoff.atOffset(ZoneOffset.UTC), players))
                .map(rows -> rows.rowCount());
    }

    /** A notification as the statements of {@link NotificationSql} answer it. */
    static StoredNotification stored(Row row) {
        OffsetDateTime expires = row.getOffsetDateTime("expires_at");
        return new StoredNotification(row.getLong("seq"), new Notification(row.getString("message"),
                row.getString("svc_url"), customData(row.getString("custom_data")), row.getString("etag"),
                row.getString("notification_id"), row.getOffsetDateTime("created").toInstant(),
                expires == null ? null : expires.toInstant()));
    }

    /** {@code custom_data} as the store keeps it (a {@code json} column: the text it was given), passed through. */
    private static RawJsonObject customData(String json) {
        return json == null ? null : new RawJsonObject(json);
    }
}
