package io.outpost.notification.service;

import io.outpost.model.event.NotificationEvent;
import io.outpost.notification.store.CursorLookup;

/**
 * Cursor semantics (DESIGN §4). A cursor is either the id of a player's notification ("after this one") or a
 * position token {@code pos-<seq>} that stands for "after sequence seq" when no notification was returned and
 * the client sent no usable id. The two cannot be confused: producer ids starting with {@code pos-} are refused
 * at the edge (HTTP 422, Kafka dead letter). Only a notification stored before that rule can share a token's
 * spelling, and it keeps winning, as it did when stored. A token beyond the player's last sequence is not the
 * player's and counts as unknown.
 */
public final class Cursors {

    static final String TOKEN_PREFIX = NotificationEvent.RESERVED_ID_PREFIX;

    /**
     * Where a poll starts, and the cursor to answer with when nothing is returned; {@code reset} when the client's
     * cursor named nothing the player's stream holds, so that {@code offset_reset_strategy} decided the start.
     */
    record Start(long afterSeq, String emptyCursor, boolean reset) {

        Start(long afterSeq, String emptyCursor) {
            this(afterSeq, emptyCursor, false);
        }
    }

    /**
     * What a held poll keeps of an {@code exclude_before} longer than any notification id or token: it names
     * nothing the store holds, as this does — so the poll starts as {@code offset_reset_strategy} says, exactly as
     * with the value sent —, and every such poll shares this one string instead of keeping up to 8 KiB of its own.
     */
    static final String NAMES_NOTHING = "-".repeat(NotificationEvent.MAX_NOTIFICATION_ID + 1);

    private Cursors() {
    }

    /**
     * The {@code exclude_before} a poll keeps while held: null for none (absent or empty), the value itself when it
     * could name a notification or be a token ({@value NotificationEvent#MAX_NOTIFICATION_ID} characters at most),
     * else {@link #NAMES_NOTHING}.
     */
    public static String held(String excludeBefore) {
        if (excludeBefore == null || excludeBefore.isEmpty()) {
            return null;
        }
        return excludeBefore.length() > NotificationEvent.MAX_NOTIFICATION_ID ? NAMES_NOTHING : excludeBefore;
    }

    static Start resolve(String excludeBefore, boolean earliest, CursorLookup lookup) {
        if (lookup.namedSeq() != null) {
            return new Start(lookup.namedSeq(), excludeBefore);
        }
        Long token = token(excludeBefore);
        if (token != null && token <= lookup.lastSeq()) {
            return new Start(token, excludeBefore);
        }
        long start = earliest ? 0 : lookup.lastSeq();
        return new Start(start, TOKEN_PREFIX + start, excludeBefore != null);
    }

    /** The sequence a position token stands for; null when {@code cursor} is not one. */
    static Long token(String cursor) {
        if (cursor == null || !cursor.startsWith(TOKEN_PREFIX) || cursor.length() > TOKEN_PREFIX.length() + 18) {
            return null;
        }
        String digits = cursor.substring(TOKEN_PREFIX.length());
        if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return null;
        }
        return Long.parseLong(digits);
    }
}
