package io.outpost.notification.service;

import java.util.List;

import io.outpost.model.api.Notification;
import io.outpost.model.api.NotificationPage;
import io.outpost.notification.store.NotificationStore;
import io.outpost.notification.store.StoredNotification;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Vertx;

/**
 * One long poll in flight. While it waits it holds no thread and no database connection: only this object,
 * a Vert.x timer for its deadline and its entry in {@link PollRegistry}. A wake-up or the timer moves it on.
 *
 * <p>It is registered before its first query, so a notification committed at any moment is either seen by
 * that query or announced by a wake-up afterwards; a wake-up during a query schedules one more query.
 */
final class HeldPoll {

    private final PollRequest request;
    private final NotificationStore store;
    private final PollRegistry registry;
    private final Vertx vertx;
    private UniEmitter<? super NotificationPage> emitter;
    private Cursors.Start start;
    private boolean fetching;
    private boolean wakePending;
    private boolean done;
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
        synchronized (this) {
            fetching = true; // a wake-up during the first query asks for one more
        }
        String cursor = request.excludeBefore();
        store.start(request.player(), cursor, Cursors.token(cursor), request.earliest(), request.maxPageSize())
                .subscribe().with(first -> {
                    Cursors.Start resolved = Cursors.resolve(cursor, request.earliest(), first.lookup());
                    synchronized (this) {
                        if (done) {
                            return;
                        }
                        start = resolved;
                        long millis = request.deadline().toMillis();
                        if (first.page().isEmpty() && millis > 0 && !registry.closing()) {
                            timer = vertx.setTimer(millis, id -> answerEmpty());
                        }
                    }
                    fetched(first.page());
                }, emitter::fail);
    }

    /** A notification was stored for this player (or wake-ups may have been missed): look again. */
    void wake() {
        synchronized (this) {
            if (done) {
                return;
            }
            if (fetching) {
                wakePending = true;
                return;
            }
        }
        fetch();
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
            if (done) {
                return;
            }
            fetching = true;
            wakePending = false;
            after = start.afterSeq();
        }
        store.after(request.player(), after, request.maxPageSize()).subscribe().with(this::fetched, emitter::fail);
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
            fetching = false;
            again = wakePending;
        }
        if (again) {
            fetch();
        }
    }

    private void complete(NotificationPage page) {
        synchronized (this) {
            if (done) {
                return;
            }
            done = true;
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
            done = true;
            pending = timer;
        }
        if (pending != -1) {
            vertx.cancelTimer(pending);
        }
        registry.release(this);
    }
}
