package io.outpost.notification.store;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.outpost.support.store.StoreDeadline;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Repeated {@code notification_id}s with other content, found before publishing (docs/notifications.md, "Repeated
 * ids"): the publish endpoint refuses them with 409 rather than have the ingest dead-letter them later. The ingest's
 * insert makes the same comparison for what reaches it anyway ({@link NotificationStore}).
 */
@ApplicationScoped
public class IdConflicts {

    private final Pool pool;
    private final StoreDeadline deadline;

    public IdConflicts(Pool pool, StoreDeadline deadline) {
        this.pool = pool;
        this.deadline = deadline;
    }

    /**
     * The positions (0-based) in {@code notifications}, all of {@code player}, of those whose id the player already
     * has with other content, or that repeat an earlier one's id with other content. Bounded by the query deadline.
     */
    public Uni<List<Integer>> of(UUID player, List<NewNotification> notifications) {
        Tuple args = Columns.of(notifications, player).strings(NewNotification::notificationId)
                .strings(NewNotification::message).strings(NewNotification::svcUrl)
                .strings(NewNotification::customDataJson).strings(NewNotification::etag).tuple();
        return deadline.query(pool, c -> c.preparedQuery(NotificationSql.CONFLICTS).execute(args)).map(rows -> {
            List<Integer> conflicts = new ArrayList<>(rows.size());
            for (Row row : rows) {
                conflicts.add(row.getLong("ord").intValue() - 1);
            }
            return conflicts;
        });
    }
}
