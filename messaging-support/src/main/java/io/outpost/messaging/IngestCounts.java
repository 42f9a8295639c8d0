package io.outpost.messaging;

import java.util.concurrent.atomic.AtomicLong;

/** What an ingest has done so far, read from any thread: records stored, dead letters acknowledged, its last failure. */
final class IngestCounts {

    private final IngestMetrics metrics;
    private final AtomicLong stored = new AtomicLong();
    private final AtomicLong deadLettered = new AtomicLong();
    private volatile Throwable lastFailure;

    IngestCounts(IngestMetrics metrics) {
        this.metrics = metrics;
    }

    /** A batch went through: {@code count} records stored, {@code lettered} dead letters acknowledged. */
    void wentThrough(int count, long lettered) {
        lastFailure = null;
        stored.addAndGet(count);
        deadLettered.addAndGet(lettered);
        metrics.stored(count);
    }

    /** Dead letters of a batch that is read again: acknowledged, so never sent twice, and counted now. */
    void lettered(long lettered) {
        deadLettered.addAndGet(lettered);
    }

    void failed(Throwable failure) {
        lastFailure = failure;
    }

    long stored() {
        return stored.get();
    }

    long deadLettered() {
        return deadLettered.get();
    }

    Throwable lastFailure() {
        return lastFailure;
    }
}
