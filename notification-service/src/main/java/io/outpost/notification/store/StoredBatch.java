package io.outpost.notification.store;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.outpost.model.api.Notification;

/**
 * What one stored batch did, per player: the sequences it handed out ({@code first..last}, including those of
 * repeated ids, which were skipped) and the notifications it actually inserted, in sequence order. Known as
 * soon as the batch's transaction has committed, so polls held here are answered from it without a query.
 */
public record StoredBatch(Map<UUID, Player> players) {

    public static final StoredBatch EMPTY = new StoredBatch(Map.of());

    /** One player's part of the batch. */
    public record Player(long first, long last, List<Inserted> inserted) {
    }

    /** A notification the batch inserted, at its sequence; made into its client form only when a poll takes it. */
    public record Inserted(long seq, NewNotification stored) {

        public Notification notification() {
            return stored.notification();
        }

        /** From its {@code expires_at} on, it is neither delivered nor listed. */
        public boolean expiredAt(java.time.Instant now) {
            return stored.expiredAt(now);
        }
    }
}
