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
        int size = notifications.size();
        String[] ids = new String[size];
        String[] messages = new String[size];
        String[] urls = new String[size];
        String[] data = new String[size];
        String[] etags = new String[size];
        for (int i = 0; i < size; i++) {
            NewNotification n = notifications.get(i);
            ids[i] = n.notificationId();
            messages[i] = n.message();
            urls[i] = n.svcUrl();
            data[i] = n.customDataJson();
            etags[i] = n.etag();
        }
        Tuple args = Tuple.of(player).addArrayOfString(ids).addArrayOfString(messages).addArrayOfString(urls)
                .addArrayOfString(data).addArrayOfString(etags);
        return deadline.query(pool, c -> c.preparedQuery(CONFLICTS).execute(args)).map(rows -> {
            List<Integer> conflicts = new ArrayList<>(rows.size());
            for (Row row : rows) {
                conflicts.add(row.getLong("ord").intValue() - 1);
            }
            return conflicts;
        });
    }
}
