package io.outpost.notification.service;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jboss.logging.Logger;

import io.outpost.model.api.Notification;
import io.outpost.model.error.AuthErrorCode;
import io.outpost.model.api.NotificationPage;
import io.outpost.notification.store.CursorLookup;
import io.outpost.notification.store.NotificationStore;
import io.outpost.notification.store.StoredBatch;
import io.outpost.notification.store.StoredNotification;
import io.outpost.support.security.AuthRefusedException;
import io.outpost.support.security.TokenVerifier;
import io.outpost.support.security.VerifiedToken;
import io.outpost.support.store.StoreFault;
import io.vertx.core.Vertx;

/**
 * One long poll in flight. While it waits it holds no thread and no database connection: only this object,
 * a Vert.x timer for its deadline and its entry in {@link PollRegistry}.
 *
 * <p>It is registered before its first query, so a notification committed at any moment is either seen by
 * that query or announced afterwards. Every announcement is handled whatever state the poll is in: one that
 * arrives while a query runs asks for one more after it; one that names only sequences the poll is past costs
 * nothing; one the registry can serve from memory ({@link #offer}) answers at once. A poll whose query failed
 * because the store was unreachable keeps waiting and is looked at again by the registry's recheck.
 *
 * <p>It lasts no longer than the token that opened it: every answer is given only while the token may still be
 * used ({@link TokenVerifier#refusalOf}), its timer fires at the token's {@code exp} when that comes before the
 * deadline, and the registry has it look again whenever a revocation arrives ({@link #endIfRefused}). Otherwise
 * the answer is the verifier's 403.
 */
final class HeldPoll {

    private static final Logger LOG = Logger.getLogger(HeldPoll.class);

    /** A sequence not said. */
    static final long UNKNOWN = -1;

    /** The poll wants the store's notifications after {@code want.after()}: the registry fetches them. */
    record Need(HeldPoll poll, NotificationStore.Want want) {
    }

    private enum State { STARTING, HELD, FETCHING, DONE }

    private final PollRequest request;
    private final VerifiedToken token;
    private final TokenVerifier tokens;
    private final NotificationStore store;
    private final PollRegistry registry;
    private final Vertx vertx;
    private PlayerPolls player;
    private PollAnswer answer;
    private State state = State.STARTING;
    private Cursors.Start start;
    private boolean wakePending;
    /** The poll started at the player's head ("latest" without a usable cursor). */
    private boolean fromNow;
    /** The lowest sequence announced for the player since the poll was admitted. */
    private long announced = Long.MAX_VALUE;
    private boolean released;
    private boolean delivered;
    private long timer = -1;

    HeldPoll(PollRequest request, VerifiedToken token, TokenVerifier tokens, NotificationStore store,
            PollRegistry registry, Vertx vertx) {
        this.request = request;
        this.token = token;
        this.tokens = tokens;
        this.store = store;
        this.registry = registry;
        this.vertx = vertx;
    }

    PollRequest request() {
        return request;
    }

    /** Started, and waiting for notifications (no query of its own in flight). */
    synchronized boolean waiting() {
        return state == State.HELD;
    }

    /** The player's entry this poll was admitted into. */
    void watching(PlayerPolls player) {
        this.player = player;
    }

    /**
     * Starts the poll: where the registry already knows ({@code known}: the client re-polls with the cursor it
     * was just given and nothing newer was announced) it waits without a query; otherwise one query resolves
     * the cursor and reads what follows.
     */
    void begin(PollAnswer answer, Cursors.Start known) {
        this.answer = answer;
        if (known != null) {
            started(known, List.of(), false);
            return;
        }
        String cursor = request.excludeBefore();
        store.start(request.player(), cursor, Cursors.token(cursor), request.earliest(), request.maxPageSize())
                .subscribe().with(first -> started(Cursors.resolve(cursor, request.earliest(), first.lookup()),
                        first.page(), true), this::fail); // a failed start is the request's answer (503)
    }

    private void started(Cursors.Start resolved, List<StoredNotification> page, boolean queried) {
        boolean movedBack;
        synchronized (this) {
            if (state == State.DONE) {
                return;
            }
            start = resolved;
            fromNow = queried && !request.earliest() && !Objects.equals(resolved.emptyCursor(), request.excludeBefore());
            movedBack = moveBackToAnnounced();
            state = State.FETCHING;
            long millis = request.deadline().toMillis();
            if (millis > 0 && !registry.closing()) {
                long untilExpiry = token.expiresAt().toEpochMilli() - System.currentTimeMillis();
                timer = untilExpiry < millis ? vertx.setTimer(Math.max(1, untilExpiry), id -> expired())
                        : vertx.setTimer(millis, id -> answerEmpty());
            }
        }
        if (movedBack) {
            fetch(); // the first query read from a later start
        } else {
            fetched(page);
        }
    }

    /**
     * Notifications {@code first..last} were announced for this player ({@link #UNKNOWN} when not said; a
     * recheck says only the head as {@code last}). Answers what the poll now needs from the store, or null.
     */
    synchronized Need announce(long first, long last) {
        if (state == State.DONE) {
            return null;
        }
        if (first != UNKNOWN) {
            announced = Math.min(announced, first);
        }
        if (state != State.HELD) {
            wakePending = true; // looked at again when the query in flight is done
            return null;
        }
        if (!moveBackToAnnounced() && last != UNKNOWN && last <= start.afterSeq()) {
            return null; // nothing this poll has not seen
        }
        return need();
    }

    /**
     * This instance just stored {@code part} for the player. A poll that has everything before it is answered
     * from it; one with a gap before it answers what it needs from the store; otherwise null.
     */
    Need offer(StoredBatch.Player part) {
        List<Notification> page;
        long cursorSeq;
        synchronized (this) {
            if (state == State.DONE) {
                return null;
            }
            announced = Math.min(announced, part.first());
            if (state != State.HELD) {
                wakePending = true;
                return null;
            }
            moveBackToAnnounced();
            long after = start.afterSeq();
            if (after >= part.last()) {
                return null;
            }
            if (after < part.first() - 1) {
                return need(); // notifications stored before this batch that the poll has not seen
            }
            page = new ArrayList<>(Math.min(request.maxPageSize(), part.inserted().size()));
            cursorSeq = after;
            for (StoredBatch.Inserted n : part.inserted()) {
                if (n.seq() > after && page.size() < request.maxPageSize()) {
                    page.add(n.notification());
                    cursorSeq = n.seq();
                }
            }
            if (page.isEmpty()) {
                return null; // all were repeats of notifications stored before
            }
            state = State.DONE;
        }
        answer(new NotificationPage(page, page.get(page.size() - 1).notificationId()), cursorSeq,
                page.size() == request.maxPageSize());
        return null;
    }

    /** Call holding the lock, in {@link State#HELD}: the poll now waits for the registry's query. */
    private Need need() {
        state = State.FETCHING;
        wakePending = false;
        return new Need(this, new NotificationStore.Want(request.player(), start.afterSeq(), request.maxPageSize()));
    }

    /**
     * A poll that started "from now" treats what was announced after it was admitted as new, even when its first
     * query already counted it as past: the announcement may reach this instance after that query saw the row.
     * (What it may deliver besides is a notification committed a moment before the poll — never one lost.)
     * Only until the poll answers; then the client has an exact cursor. Call holding the lock.
     */
    private boolean moveBackToAnnounced() {
        if (!fromNow || announced > start.afterSeq()) {
            return false;
        }
        start = Cursors.resolve(null, false, new CursorLookup(null, announced - 1));
        return true;
    }

    /** The deadline passed, or the instance is stopping: an empty page with the poll's cursor. */
    void answerEmpty() {
        Cursors.Start at;
        synchronized (this) {
            if (start == null || state == State.DONE) {
                return; // not started yet: answered right after its first query, since the registry is closing
            }
            state = State.DONE;
            at = start;
        }
        answer(new NotificationPage(List.of(), at.emptyCursor()), at.afterSeq(), false);
    }

    /** The token's {@code exp} came before the deadline. */
    private void expired() {
        AuthRefusedException refusal = tokens.refusalOf(token);
        end(refusal != null ? refusal : new AuthRefusedException(AuthErrorCode.TOKEN_EXPIRED,
                "The access token has expired"));
    }

    /** A revocation arrived: the poll ends with the verifier's refusal when its token is no longer good. */
    void endIfRefused() {
        AuthRefusedException refusal = tokens.refusalOf(token);
        if (refusal != null) {
            end(refusal);
        }
    }

    private void end(AuthRefusedException refusal) {
        synchronized (this) {
            if (state == State.DONE) {
                return;
            }
            state = State.DONE;
        }
        fail(refusal);
    }

    private void fetch() {
        Need need;
        synchronized (this) {
            if (state == State.DONE) {
                return;
            }
            need = need();
        }
        store.after(request.player(), need.want().after(), request.maxPageSize())
                .subscribe().with(this::fetched, this::fetchFailed);
    }

    /** What the store has after the poll's start (the registry's query, or the poll's own). */
    void fetched(List<StoredNotification> found) {
        if (!found.isEmpty()) {
            synchronized (this) {
                if (state == State.DONE) {
                    return;
                }
                state = State.DONE;
            }
            List<Notification> page = found.stream().map(StoredNotification::notification).toList();
            answer(new NotificationPage(page, page.get(page.size() - 1).notificationId()),
                    found.get(found.size() - 1).seq(), found.size() >= request.maxPageSize());
            return;
        }
        if (request.deadline().isZero() || registry.closing()) {
            answerEmpty();
            return;
        }
        boolean again;
        synchronized (this) {
            if (state == State.DONE) {
                return;
            }
            again = wakePending | moveBackToAnnounced();
            state = again ? State.FETCHING : State.HELD;
        }
        if (again) {
            fetch();
        }
    }

    void fetchFailed(Throwable failure) {
        if (!StoreFault.of(failure).healable()) {
            fail(failure);
            return;
        }
        synchronized (this) {
            if (state == State.DONE) {
                return;
            }
            state = State.HELD;
        }
        LOG.debugf("a held poll could not look for notifications (%s); it waits for the recheck", failure.getMessage());
        registry.recheckSoon();
    }

    /**
     * The poll's answer — or the verifier's refusal, when the token is no longer good; the player's entry keeps its
     * cursor for the client's next poll. Call without the lock.
     */
    private void answer(NotificationPage page, long cursorSeq, boolean full) {
        AuthRefusedException refusal = tokens.refusalOf(token);
        if (refusal != null) {
            fail(refusal);
            return;
        }
        player.answered(page.cursor(), cursorSeq, full);
        if (delivering()) {
            answer.page(page);
        }
    }

    private void fail(Throwable failure) {
        if (delivering()) {
            answer.failed(failure);
        }
    }

    /** Releases the poll; true the first time only: a poll has one answer, even when a failure races its page. */
    private boolean delivering() {
        release();
        synchronized (this) {
            if (delivered) {
                return false;
            }
            delivered = true;
            return true;
        }
    }

    /** Lets go of the poll's place and timer: once it is answered, or when the client has gone. Idempotent. */
    void release() {
        long pending;
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
            state = State.DONE;
            pending = timer;
        }
        if (pending != -1) {
            vertx.cancelTimer(pending);
        }
        registry.release(this);
    }
}
