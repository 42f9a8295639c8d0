package io.outpost.notification.service;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What this instance knows of one player: the polls it holds, and since when it has been watching the player's
 * announcements. Kept for a while after the last poll ends, so that the client's next poll — with the cursor it
 * was just given — can be held without a query when nothing newer was announced in between.
 *
 * <p>The watch starts when the first poll is admitted, before that poll's first query, so every notification
 * stored after that query's snapshot is announced here ({@link #announced}). A poll that answers with a page that
 * was not full leaves its cursor as the continuation: all that exists up to its sequence was read, and nothing
 * past it was stored unless announced. The continuation is dropped when announcements may have been missed (the
 * LISTEN connection was re-established). Guarded by its own lock.
 */
final class PlayerPolls {

    private final Set<HeldPoll> polls = new HashSet<>(2);
    /** How many of {@link #polls} are held by readers other than the player ({@link PollRequest#own} false). */
    private int others;
    /** The highest sequence announced since the watch began ({@link HeldPoll#UNKNOWN} for none). */
    private long announced = HeldPoll.UNKNOWN;
    private String cursor;
    private long cursorSeq;
    private long idleSince = System.nanoTime();

    synchronized int size() {
        return polls.size();
    }

    /**
     * Adds the poll when its kind is below its limit — the player's own polls below {@code maxOwn}, other readers'
     * below {@code maxOthers}, each counted apart —; false when that kind already holds that many.
     */
    synchronized boolean add(HeldPoll poll, int maxOwn, int maxOthers) {
        boolean own = poll.request().own();
        if (own ? polls.size() - others >= maxOwn : others >= maxOthers) {
            return false;
        }
        polls.add(poll);
        if (!own) {
            others++;
        }
        return true;
    }

    synchronized void remove(HeldPoll poll) {
        if (!polls.remove(poll)) {
            return;
        }
        if (!poll.request().own()) {
            others--;
        }
        if (polls.isEmpty()) {
            idleSince = System.nanoTime();
        }
    }

    synchronized List<HeldPoll> polls() {
        return new ArrayList<>(polls);
    }

    synchronized void announced(long last) {
        announced = Math.max(announced, last);
    }

    /**
     * Where a poll that passes {@code excludeBefore} starts without a query: the continuation's sequence, when
     * that is the cursor left by the last answer and nothing past it was announced since; else null.
     */
    synchronized Cursors.Start continuation(String excludeBefore) {
        if (cursor == null || !cursor.equals(excludeBefore) || announced > cursorSeq) {
            return null;
        }
        return new Cursors.Start(cursorSeq, cursor);
    }

    /** A poll answered with {@code cursor}, standing for {@code seq}; a full page may have more behind it. */
    synchronized void answered(String cursor, long seq, boolean full) {
        this.cursor = full ? null : cursor;
        this.cursorSeq = seq;
    }

    /** Announcements may have been missed: no poll starts from memory until a query has looked again. */
    synchronized void forgetContinuation() {
        cursor = null;
    }

    /** No poll held for longer than {@code nanos}. */
    synchronized boolean idleFor(long nanos) {
        return polls.isEmpty() && System.nanoTime() - idleSince > nanos;
    }
}
