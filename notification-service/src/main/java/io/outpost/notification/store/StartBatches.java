package io.outpost.notification.store;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import io.outpost.support.store.StoreDeadline;
import io.outpost.support.store.StoreFault;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;

/**
 * The first looks of new polls, batched: at most {@link #IN_FLIGHT} start queries run at once, and each carries
 * every start that arrived while the others ran (up to {@link #CHUNK}). Unloaded, a new poll's query leaves at
 * once; under a burst (clients coming back after a deploy, or right after a bulk load while PostgreSQL vacuums),
 * thousands of new polls per second cost a few queries per round trip instead of one each, so they never fill the
 * connection pool's wait queue.
 *
 * <p>Each start keeps its own deadline ({@link StoreDeadline}), counted from when it was asked for: one waiting
 * behind slow batches fails with 503 in time, and is left out of the next batch.
 */
final class StartBatches {

    /** Start queries running at once; the pool keeps its other connections for wake-ups and rechecks. */
    static final int IN_FLIGHT = 4;
    /** New polls per start query at most. */
    static final int CHUNK = 500;

    private final NotificationStore store;
    private final StoreDeadline deadline;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private int inFlight;

    StartBatches(NotificationStore store, StoreDeadline deadline) {
        this.store = store;
        this.deadline = deadline;
    }

    Uni<NotificationStore.Start> start(NotificationStore.StartWant want) {
        return deadline.bound(Uni.createFrom().emitter(emitter -> {
            Pending start = new Pending(want, emitter);
            emitter.onTermination(start::abandon); // answered, or given up at its deadline
            List<Pending> batch;
            synchronized (this) {
                pending.add(start);
                batch = take();
            }
            run(batch);
        }));
    }

    /** The next batch, if a query may start now (holding the lock); null otherwise. */
    private List<Pending> take() {
        if (inFlight >= IN_FLIGHT) {
            return null;
        }
        List<Pending> batch = new ArrayList<>(Math.min(CHUNK, pending.size()));
        while (batch.size() < CHUNK && !pending.isEmpty()) {
            Pending next = pending.peek();
            if (next.alone && !batch.isEmpty()) {
                break;
            }
            pending.poll();
            if (!next.abandoned) {
                batch.add(next);
                if (next.alone) {
                    break;
                }
            }
        }
        if (batch.isEmpty()) {
            return null;
        }
        inFlight++;
        return batch;
    }

    private void run(List<Pending> batch) {
        if (batch == null) {
            return;
        }
        // deferred: should building the query throw, it fails this batch (and frees its slot) like any failure
        Uni.createFrom().deferred(() -> store.start(batch.stream().map(Pending::want).toList())).subscribe().with(starts -> {
            finished();
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).emitter.complete(starts.get(i));
            }
        }, failure -> {
            if (batch.size() > 1 && !StoreFault.of(failure).healable()) {
                // refused for one start's data (none is expected to be): each is asked again alone, so only
                // that one fails
                synchronized (this) {
                    for (int i = batch.size() - 1; i >= 0; i--) {
                        batch.get(i).alone = true;
                        pending.addFirst(batch.get(i));
                    }
                }
                finished();
                return;
            }
            finished();
            batch.forEach(start -> start.emitter.fail(failure));
        });
    }

    /** A query ended: the next batch, if any waits. */
    private void finished() {
        List<Pending> next;
        synchronized (this) {
            inFlight--;
            next = take();
        }
        run(next);
    }

    private static final class Pending {
        private final NotificationStore.StartWant want;
        private final UniEmitter<? super NotificationStore.Start> emitter;
        private volatile boolean abandoned;
        /** Asked in a query of its own (its batch was refused for some start's data). */
        private boolean alone;

        Pending(NotificationStore.StartWant want, UniEmitter<? super NotificationStore.Start> emitter) {
            this.want = want;
            this.emitter = emitter;
        }

        NotificationStore.StartWant want() {
            return want;
        }

        void abandon() {
            abandoned = true;
        }
    }
}
