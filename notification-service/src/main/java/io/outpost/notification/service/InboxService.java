package io.outpost.notification.service;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.outpost.model.api.InboxPage;
import io.outpost.model.api.Notification;
import io.outpost.notification.store.InboxStore;
import io.outpost.notification.store.StoredNotification;
import io.smallrye.mutiny.Uni;

/**
 * A player's inbox: pages newest first with their {@code ETag}, one notification, deleting, the read marker.
 *
 * <p>{@code start_at} and {@code exclude_before} take a notification id or a position token ({@code pos-<n>}, as
 * the page's own cursor is); a page starts at its {@code start_at} inclusive (by default the newest) and stops
 * above its {@code exclude_before}. An id the player has no notification of stands before everything it has: as
 * {@code start_at} it gives an empty page, as {@code exclude_before} it excludes nothing.
 */
@ApplicationScoped
public class InboxService {

    /** The cursor of the last page: nothing is at or below sequence 0. */
    static final String END = Cursors.TOKEN_PREFIX + "0";

    private final InboxStore store;

    public InboxService(InboxStore store) {
        this.store = store;
    }

    /** A page and its {@code ETag}, which changes exactly when the page would. */
    public record Page(InboxPage page, String etag) {
    }

    public Uni<Page> page(UUID player, String startAt, String excludeBefore, int pageSize) {
        InboxStore.Bound start = bound(startAt, Long.MAX_VALUE);
        InboxStore.Bound above = bound(excludeBefore, 0);
        return store.page(player, start, above, pageSize + 1).map(found -> {
            List<StoredNotification> rows = found.rows();
            boolean more = rows.size() > pageSize;
            List<InboxPage.Entry> entries = new ArrayList<>(Math.min(rows.size(), pageSize));
            MessageDigest etag = sha256();
            for (StoredNotification row : more ? rows.subList(0, pageSize) : rows) {
                boolean read = row.seq() <= found.readSeq();
                entries.add(new InboxPage.Entry(row.notification(), read));
                etag.update((row.seq() + (read ? "r" : "u") + ",").getBytes(StandardCharsets.US_ASCII));
            }
            String cursor = more ? Cursors.TOKEN_PREFIX + rows.get(pageSize).seq() : END;
            etag.update(cursor.getBytes(StandardCharsets.US_ASCII));
            return new Page(new InboxPage(entries, cursor), "\""
                    + Base64.getUrlEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(etag.digest(), 16))
                    + "\"");
        });
    }

    /** The player's notification, or null when it has none it may read (deleted, expired, never). */
    public Uni<Notification> byId(UUID player, String notificationId) {
        return store.byId(player, notificationId).map(found -> found == null ? null : found.notification());
    }

    /** False when the player has no notification so named. */
    public Uni<Boolean> delete(UUID player, String notificationId) {
        return store.delete(player, notificationId);
    }

    /** False when the player has no notification so named. */
    public Uni<Boolean> markRead(UUID player, String notificationId) {
        return store.markRead(player, notificationId);
    }

    /** A page bound given as an id or a position token; {@code otherwise} without one. */
    private static InboxStore.Bound bound(String given, long otherwise) {
        if (given == null) {
            return new InboxStore.Bound(null, otherwise);
        }
        Long token = Cursors.token(given);
        return token != null ? new InboxStore.Bound(null, token) : new InboxStore.Bound(given, 0);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
