package io.outpost.notification.service;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.outpost.model.api.Notification;
import io.outpost.notification.store.CursorLookup;
import io.outpost.notification.store.NotificationStore;
import io.outpost.notification.store.StoredBatch;

/**
 * Where one held poll stands, and every rule of how it moves on: pure state and decisions, no I/O, no threads.
 * {@link HeldPoll} owns one and reaches it only through {@code HeldPoll.step}, which holds the poll's lock, so the
 * state is never read or changed outside it; each method answers what the poll must do next ({@link Step}), and the
 * poll does it after letting go of the lock.
 *
 * <p>Stages: {@code STARTING} (admitted, its first query not answered), {@code WAITING} (nothing to send, no query
 * of its own in flight), {@code FETCHING} (a query for it in flight), {@code DONE} (answered, refused or released).
 * An announcement that arrives while a query is in flight is remembered ({@code wakePending}) and looked at when the
 * query is answered, so none is lost between the two.
 */
final class PollProgress {

    /** What the poll does next. */
    sealed interface Step {
    }

    /** Nothing: it was already past what arrived, or it is over. */
    record Stay() implements Step {
    }

    /** Ask the store for what follows {@code want.after()}. */
    record Fetch(NotificationStore.Want want) implements Step {
    }

    /** Answer with these notifications; {@code cursorSeq} is the last one's sequence. */
    record Answer(List<Notification> page, long cursorSeq, boolean full) implements Step {
    }

    private static final Stay STAY = new Stay();

    private enum Stage { STARTING, WAITING, FETCHING, DONE }

    private final PollRequest request;
    private Stage stage = Stage.STARTING;
    private Cursors.Start start;
    /** The poll started at the player's head ("latest" without a usable cursor). */
    private boolean fromNow;
    /** The lowest sequence announced for the player since the poll was admitted. */
    private long announced = Long.MAX_VALUE;
    private boolean wakePending;

    PollProgress(PollRequest request) {
        this.request = request;
    }

    boolean waiting() {
        return stage == Stage.WAITING;
    }

    boolean done() {
        return stage == Stage.DONE;
    }

    /** The poll's start is known (from memory, or its first query): it now fetches; null when it is over. */
    Step started(Cursors.Start resolved, boolean queried) {
        if (stage == Stage.DONE) {
            return null;
        }
        start = resolved;
        fromNow = queried && !request.earliest()
                && !Objects.equals(resolved.emptyCursor(), request.excludeBefore());
        stage = Stage.FETCHING;
        // the first query read from a later start than what was announced meanwhile: read again from there
        return moveBackToAnnounced() ? fetch() : STAY;
    }

    /**
     * Notifications {@code first..last} were announced ({@link HeldPoll#UNKNOWN} when not said; a recheck says only
     * the head as {@code last}).
     */
    Step announced(long first, long last) {
        if (stage == Stage.DONE) {
            return STAY;
        }
        if (first != HeldPoll.UNKNOWN) {
            announced = Math.min(announced, first);
        }
        if (stage != Stage.WAITING) {
            wakePending = true; // looked at again when the query in flight is done
            return STAY;
        }
        if (!moveBackToAnnounced() && last != HeldPoll.UNKNOWN && last <= start.afterSeq()) {
            return STAY; // nothing this poll has not seen
        }
        return fetch();
    }

    /**
     * This instance just stored {@code part} for the player: a poll that has everything before it answers from it,
     * one with a gap before it fetches.
     */
    Step offered(StoredBatch.Player part) {
        if (stage == Stage.DONE) {
            return STAY;
        }
        announced = Math.min(announced, part.first());
        if (stage != Stage.WAITING) {
            wakePending = true;
            return STAY;
        }
        moveBackToAnnounced();
        long after = start.afterSeq();
        if (after >= part.last()) {
            return STAY;
        }
        if (after < part.first() - 1) {
            return fetch(); // notifications stored before this batch that the poll has not seen
        }
        List<Notification> page = new ArrayList<>(Math.min(request.maxPageSize(), part.inserted().size()));
        long cursorSeq = after;
        Instant now = Instant.now();
        for (StoredBatch.Inserted n : part.inserted()) {
            if (n.seq() > after && page.size() < request.maxPageSize()) {
                if (!n.expiredAt(now)) {
                    page.add(n.notification());
                }
                cursorSeq = n.seq(); // an expired one is passed over, as a query passes over it
            }
        }
        if (page.isEmpty()) {
            return STAY; // all were repeats of notifications stored before, or had expired already
        }
        stage = Stage.DONE;
        return new Answer(page, cursorSeq, page.size() == request.maxPageSize());
    }

    /** The store answered the poll's query with nothing: it waits, or fetches again for what arrived meanwhile. */
    Step foundNothing() {
        if (stage == Stage.DONE) {
            return STAY;
        }
        boolean again = wakePending | moveBackToAnnounced();
        if (again) {
            return fetch();
        }
        stage = Stage.WAITING;
        return STAY;
    }

    /** Its query could not reach the store: it waits for the registry's recheck; false when it is over. */
    boolean waitForRecheck() {
        if (stage == Stage.DONE) {
            return false;
        }
        stage = Stage.WAITING;
        return true;
    }

    /** The poll ends now (with rows, a refusal, or because it was released); false when it already had. */
    boolean end() {
        if (stage == Stage.DONE) {
            return false;
        }
        stage = Stage.DONE;
        return true;
    }

    /** The poll ends with an empty page: its start, or null when it had not started or is over. */
    Cursors.Start endEmpty() {
        if (start == null || stage == Stage.DONE) {
            return null; // not started yet: answered right after its first query, since the registry is closing
        }
        stage = Stage.DONE;
        return start;
    }

    private Step fetch() {
        stage = Stage.FETCHING;
        wakePending = false;
        return new Fetch(want());
    }

    private NotificationStore.Want want() {
        return new NotificationStore.Want(request.player(), start.afterSeq(), request.maxPageSize());
    }

    /**
     * A poll that started "from now" treats what was announced after it was admitted as new, even when its first
     * query already counted it as past: the announcement may reach this instance after that query saw the row.
     * (What it may deliver besides is a notification committed a moment before the poll — never one lost.)
     * Only until the poll answers; then the client has an exact cursor.
     */
    private boolean moveBackToAnnounced() {
        if (!fromNow || announced > start.afterSeq()) {
            return false;
        }
        start = Cursors.resolve(null, false, new CursorLookup(null, announced - 1));
        return true;
    }
}
