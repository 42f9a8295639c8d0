package io.outpost.notification.service;

import java.util.List;
import java.util.Objects;

import org.jboss.logging.Logger;

import io.outpost.model.api.Notification;
import io.outpost.model.api.NotificationPage;
import io.outpost.notification.store.CursorLookup;
import io.outpost.notification.store.NotificationStore;
import io.outpost.notification.store.StoredNotification;
import io.outpost.support.store.StoreFault;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Vertx;

/**
 * One long poll in flight. While it waits it holds no thread and no database connection: only this object,
 * a Vert.x timer for its deadline and its entry in {@link PollRegistry}. A wake-up or the timer moves it on.
 *
 * <p>It is registered before its first query, so a notification committed at any moment is either seen by
 * that query or announced by a wake-up afterwards. Every wake-up is handled whatever state the poll is in: one
 * that arrives while a query runs (the first one included) asks for one more query after it; one that names
 * only sequences the poll is already past costs nothing. A poll whose query failed because the store was
 * unreachable keeps waiting and is looked at again by the registry's recheck once the store answers.
 */
final class HeldPoll {

    private static final Logger LOG = Logger.getLogger(HeldPoll.class);

    /** A wake-up that does not say which sequences were stored. */
    static final long UNKNOWN = -1;

    private enum State { STARTING, HELD, FETCHING, DONE }

    private final PollRequest request;
    private final NotificationStore store;
    private final PollRegistry registry;
    private final Vertx vertx;
    private UniEmitter<? super NotificationPage> emitter;
    private State state = State.STARTING;
    private Cursors.Start start;
    private boolean wakePending;
    /** The poll started at the player's head ("latest" without a usable cursor). */
    private boolean fromNow;
    /** The lowest sequence announced for the player since the poll was admitted. */
    private long announced = Long.MAX_VALUE;
    private boolean released;
    private long timer = -1;

    HeldPoll(PollRequest request, NotificationStore store, PollRegistry registry, Vertx vertx) {
        this.request = request;
        this.store = store;
        this.registry = registry;
        this.vertx = vertx;
    }

    PollRequest request() {
        return request;
    }

    /** Resolves where to start and reads what follows in one query, then answers at once or waits. */
    void begin(UniEmitter<? super NotificationPage> emitter) {
        this.emitter = emitter;
        emitter.onTermination(this::release); // answered, failed, or the client went away
        String cursor = request.excludeBefore();
        store.start(request.player(), cursor, Cursors.token(cursor), request.earliest(), request.maxPageSize())
                .subscribe().with(this::started, emitter::fail); // a failed start is the request's answer (503)
    }

    private void started(NotificationStore.Start first) {
        String cursor = request.excludeBefore();
        Cursors.Start resolved = Cursors.resolve(cursor, request.earliest(), first.lookup());
        boolean movedBack;
        synchronized (this) {
            if (state == State.DONE) {
                return;
            }
            start = resolved;
            fromNow = !request.earliest() && !Objects.equals(resolved.emptyCursor(), cursor);
            movedBack = moveBackToAnnounced();
            state = State.FETCHING;
            long millis = request.deadline().toMillis();
            if (millis > 0 && !registry.closing()) {
                timer = vertx.setTimer(millis, id -> answerEmpty());
            }
        }
        if (movedBack) {
            fetch(); // the first query read from a later start
        } else {
            fetched(first.page());
        }
    }

    /**
     * Notifications {@code first..last} were stored for this player ({@link #UNKNOWN} when not said), or the
     * registry rechecks polls against the player's head ({@code first} {@link #UNKNOWN}, {@code last} the head).
     */
    void wake(long first, long last) {
        synchronized (this) {
            if (state == State.DONE) {
                return;
            }
            if (first != UNKNOWN) {
                announced = Math.min(announced, first);
            }
            if (state != State.HELD) {
                wakePending = true; // looked at again when the query in flight is done
                return;
            }
            if (!moveBackToAnnounced() && last != UNKNOWN && last <= start.afterSeq()) {
                return; // nothing this poll has not seen
            }
            state = State.FETCHING;
        }
        fetch();
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

    /** The sequence this poll waits after, or {@link #UNKNOWN} while its first query runs. */
    synchronized long after() {
        return start == null ? UNKNOWN : start.afterSeq();
    }

    /** The deadline passed, or the instance is stopping: an empty page with the poll's cursor. */
    void answerEmpty() {
        String cursor;
        synchronized (this) {
            if (start == null) {
                return; // answered right after its first query, since the registry is closing
            }
            cursor = start.emptyCursor();
        }
        complete(new NotificationPage(List.of(), cursor));
    }

    private void fetch() {
        long after;
        synchronized (this) {
            if (state == State.DONE) {
                return;
            }
            wakePending = false;
            after = start.afterSeq();
        }
        store.after(request.player(), after, request.maxPageSize()).subscribe().with(this::fetched, this::fetchFailed);
    }

    private void fetched(List<StoredNotification> found) {
        if (!found.isEmpty()) {
            List<Notification> page = found.stream().map(StoredNotification::notification).toList();
            complete(new NotificationPage(page, page.get(page.size() - 1).notificationId()));
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

    private void fetchFailed(Throwable failure) {
        if (!StoreFault.of(failure).healable()) {
            emitter.fail(failure);
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

    private void complete(NotificationPage page) {
        synchronized (this) {
            if (state == State.DONE) {
                return;
            }
            state = State.DONE;
        }
        emitter.complete(page);
    }

    private void release() {
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
