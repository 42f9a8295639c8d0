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
 * ids"): the publish and fan-out endpoints refuse them with 409 rather than have the ingest dead-letter them later,
 * whatever became of the notification first given the id (deleted, expired, emptied). The ingest's
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

    /**
     * Of one notification's {@code content} fanned out to {@code players} with {@code ids} (position by position),
     * the first position (0-based) whose player already has its id with other content, or -1. Bounded by the query
     * deadline.
     */
    public Uni<Integer> firstFannedOut(List<UUID> players, List<String> ids, NewNotification content) {
        Tuple args = Tuple.tuple().addArrayOfUUID(players.toArray(UUID[]::new))
                .addArrayOfString(ids.toArray(String[]::new)).addString(content.message())
                .addString(content.svcUrl()).addString(content.customDataJson()).addString(content.etag());
        return deadline.query(pool, c -> c.preparedQuery(NotificationSql.FANNED_CONFLICT).execute(args))
                .map(rows -> rows.size() == 0 ? -1 : rows.iterator().next().getLong("ord").intValue() - 1);
    }
}
