package io.outpost.notification.store;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.support.store.StoreDeadline;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The player's inbox beside the long poll: pages newest first, one notification, deleting, the read marker — each
 * one statement of {@link NotificationSql}, bounded by the query deadline like every read of the request path.
 */
@ApplicationScoped
public class InboxStore {

    /** Where a page starts and stops: a notification id ({@code id}) or, without one, a sequence. */
    public record Bound(String id, long seq) {
    }

    /** A page's rows, newest first (one more than asked when an older one follows), and the read marker. */
    public record Rows(List<StoredNotification> rows, long readSeq) {
    }

    private final Pool pool;
    private final StoreDeadline deadline;
    private final Counter pageQueries;
    private final Counter byIdQueries;

    public InboxStore(Pool pool, StoreDeadline deadline, MeterRegistry meters) {
        this.pool = pool;
        this.deadline = deadline;
        this.pageQueries = NotificationStore.queries(meters, "page");
        this.byIdQueries = NotificationStore.queries(meters, "by_id");
    }

    /** At most {@code limit} of {@code player}'s visible notifications at or below {@code start}, above {@code above}. */
    public Uni<Rows> page(UUID player, Bound start, Bound above, int limit) {
        Tuple args = Tuple.tuple().addUUID(player).addString(start.id()).addLong(start.seq()).addString(above.id())
                .addLong(above.seq()).addInteger(limit);
        pageQueries.increment();
        return deadline.query(pool, c -> c.preparedQuery(NotificationSql.PAGE).execute(args)).map(result -> {
            List<StoredNotification> rows = new ArrayList<>(result.size());
            long readSeq = 0;
            for (Row row : result) {
                readSeq = row.getLong("read_seq");
                if (row.getLong("seq") != null) {
                    rows.add(NotificationStore.stored(row));
                }
            }
            return new Rows(rows, readSeq);
        });
    }

    /** The player's notification {@code id}, or null when it has none it may read. */
    public Uni<StoredNotification> byId(UUID player, String id) {
        byIdQueries.increment();
        return deadline.query(pool, c -> c.preparedQuery(NotificationSql.BY_ID).execute(Tuple.of(player, id)))
                .map(result -> result.size() == 0 ? null : NotificationStore.stored(result.iterator().next()));
    }

    /** Deletes the player's notification {@code id}; false when the player has none so named. */
    public Uni<Boolean> delete(UUID player, String id) {
        return deadline.query(pool, c -> c.preparedQuery(NotificationSql.DELETE).execute(Tuple.of(player, id)))
                .map(result -> result.rowCount() > 0);
    }

    /** Moves the player's read marker up to notification {@code id}; false when the player has none so named. */
    public Uni<Boolean> markRead(UUID player, String id) {
        return deadline.query(pool, c -> c.preparedQuery(NotificationSql.MARK_READ).execute(Tuple.of(player, id)))
                .map(result -> result.rowCount() > 0);
    }

    /** Empties up to {@code limit} deleted or expired notifications; answers how many. */
    public Uni<Integer> emptyHidden(int limit) {
        return pool.preparedQuery(NotificationSql.EMPTY_HIDDEN).execute(Tuple.of(limit)).map(rows -> rows.rowCount());
    }
}
