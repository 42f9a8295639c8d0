package io.outpost.history.config;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Every setting of history-service, under {@code outpost.history}. */
@ConfigMapping(prefix = "outpost.history")
public interface HistoryConfig {

    /** Kafka consumer group of the transaction ingest; all replicas share it. */
    @WithDefault("outpost-history")
    String consumerGroup();

    /**
     * Records per ingest batch at most, stored by {@link #ingestWriters()} database transactions (offsets are
     * committed at most every 100 ms, covering every batch stored since the last). Larger batches raise the ingest
     * rate (measured: 500 → ≈6,500/s, 2,000 → ≈11,500/s on a loaded 2-core box); each batch is retried whole after
     * a failure.
     */
    @WithDefault("2000")
    int ingestBatch();

    /**
     * Database transactions a batch is stored in at once, each over its own connection (the batch's sandboxes
     * dealt among them by lock slot, so they never wait on each other's locks). Measured: docs/benchmarks.md,
     * "Decisions".
     */
    @WithDefault("2")
    int ingestWriters();

    /** Whether this replica consumes the topic at all (a read-only replica may leave it to the others). */
    @WithDefault("true")
    boolean ingestEnabled();

    /**
     * How long one store call of the ingest (a batch's {@code transactions}) may take; then it is abandoned — cancelled in
     * PostgreSQL — and the batch retried after a back-off, counted as {@code reason="timeout"}. Keep it above
     * {@code outpost.store.lock-timeout} (10 s), so a writer waiting behind another's locks gives up on its own first.
     */
    @WithDefault("PT30S")
    Duration ingestStoreTimeout();

    /**
     * Bytes the transactions of one page may take at most (counted from above: each snapshot as PostgreSQL writes
     * it, its text fields escaped); a page stops before the transaction that would pass it, yet always shows one.
     * A page is built whole in memory, a few times over (the rows read, their text, the response), beside the other
     * pages being served: keep it a small part of the heap.
     */
    @WithDefault("1048576")
    long pageBytes();
}
