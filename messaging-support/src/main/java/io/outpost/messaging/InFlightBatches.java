package io.outpost.messaging;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;

/**
 * The batches of an ingest being stored, oldest first, on store threads of their own, while the consumer's thread
 * polls and prepares the next: their scheduling, and what happens as each one finishes. Invariants, all kept here:
 * <ul>
 * <li><b>per-key order</b> — a batch is stored beside those in flight only when it shares no record key with them
 * ({@link #mayStoreBeside}), so a key's records reach the store one batch after the other, in order;</li>
 * <li><b>offsets only after durable rows</b> — a batch's offsets go to the {@link OffsetCommits} only once its store
 * and every batch before it went through ({@link #retire}: oldest first);</li>
 * <li><b>one failure rewinds what was stored beside it</b> — when a batch failed, the later ones are waited for and
 * not committed, and the {@link Rewind} reads all of them again (the store is idempotent).</li>
 * </ul>
 * The consumer's thread only.
 */
final class InFlightBatches<E> {

    /** While batches are being stored, with room for one more: how long a poll may wait before the loop looks again. */
    private static final Duration POLL_STORING = Duration.ofMillis(5);

    private final ArrayDeque<Storing<E>> inFlight = new ArrayDeque<>();
    private final ExecutorService storer;
    private final int max;
    private final OffsetCommits commits;
    private final IngestCounts counts;

    InFlightBatches(String topic, int max, OffsetCommits commits, IngestCounts counts) {
        this.max = max;
        this.commits = commits;
        this.counts = counts;
        this.storer = Executors.newFixedThreadPool(max, task -> {
            Thread t = new Thread(task, "ingest-store-" + topic);
            t.setDaemon(true);
            return t;
        });
    }

    boolean isEmpty() {
        return inFlight.isEmpty();
    }

    int size() {
        return inFlight.size();
    }

    /** How long the next poll may wait: long when nothing is stored, briefly with room beside, not at all when full. */
    Duration pollWait(Duration idle) {
        return inFlight.isEmpty() ? idle : inFlight.size() < max ? POLL_STORING : Duration.ZERO;
    }

    /** Whether {@code next} may be stored now beside those in flight: room, and no record key in common. */
    boolean mayStoreBeside(BatchWork<E> next) {
        if (inFlight.size() >= max) {
            return false;
        }
        for (Storing<E> storing : inFlight) {
            if (storing.work().sharesKeyWith(next)) {
                return false;
            }
        }
        return true;
    }

    /** Gives {@code batch} to a store thread. */
    void store(BatchWork<E> batch) {
        inFlight.addLast(new Storing<>(batch, storer.submit(batch::store)));
    }

    /**
     * The oldest batch is to be waited for before {@code next} is stored: it is done anyway, or there is no room
     * beside it, or {@code next} shares a key with a batch in flight.
     */
    Predicate<Storing<E>> before(BatchWork<E> next) {
        return oldest -> oldest.result().isDone() || next != null && !mayStoreBeside(next) || inFlight.size() >= max;
    }

    /** Every batch in flight is to be waited for (closing, revoking). */
    Predicate<Storing<E>> all() {
        return oldest -> true;
    }

    /**
     * Finishes the oldest batches while {@code retire} holds for the oldest: waits for each and keeps its offsets to
     * commit. When one failed, the batches after it are waited for and not committed, and the answer says where to
     * read again; null when every finished batch went through.
     */
    Rewind retire(Predicate<Storing<E>> retire) {
        while (!inFlight.isEmpty() && retire.test(inFlight.peekFirst())) {
            Storing<E> oldest = inFlight.pollFirst();
            Throwable failure = oldest.await();
            if (failure == null) {
                commits.wentThrough(oldest.work().offsets());
                counts.wentThrough(oldest.count, oldest.work().deadLettered());
                continue;
            }
            Rewind rewind = new Rewind(failure, oldest.work().starts());
            for (Storing<E> later; (later = inFlight.pollFirst()) != null;) {
                // it may have stored its records: the store is idempotent, they are read again
                if (later.await() == null) {
                    counts.lettered(later.work().deadLettered()); // acknowledged: not sent again
                }
                rewind.alsoFrom(later.work().starts());
            }
            return rewind;
        }
        return null;
    }

    void shutdown() {
        storer.shutdownNow();
    }

    /** A batch given to the store, and what the store answers (its count once it went through). */
    static final class Storing<E> {
        private final BatchWork<E> work;
        private final Future<Integer> result;
        private int count;

        Storing(BatchWork<E> work, Future<Integer> result) {
            this.work = work;
            this.result = result;
        }

        BatchWork<E> work() {
            return work;
        }

        Future<Integer> result() {
            return result;
        }

        /** Waits for the store to end; answers its failure, or null when it went through. */
        Throwable await() {
            try {
                count = result.get();
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return e;
            } catch (ExecutionException e) {
                return e.getCause();
            }
        }
    }
}
