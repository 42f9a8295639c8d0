package io.outpost.notification.store;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What one stored batch did, per player: the sequences it handed out ({@code first..last}, including those of
 * repeated ids, which were skipped) and the notifications it actually inserted, in sequence order. Known as
 * soon as the batch's transaction has committed, so polls held here are answered from it without a query.
 */
public record StoredBatch(Map<UUID, Player> players) {

    /** One player's part of the batch. */
    public record Player(long first, long last, List<StoredNotification> inserted) {
    }

    public static final StoredBatch EMPTY = new StoredBatch(Map.of());
}
