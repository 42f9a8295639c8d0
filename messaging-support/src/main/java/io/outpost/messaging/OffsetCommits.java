package io.outpost.messaging;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.jboss.logging.Logger;

/**
 * The commit strategy of an ingest, and nothing else: the offsets of batches that went through are kept
 * ({@link #wentThrough}) and committed at most every {@link #INTERVAL}, one commit for all of them, asynchronously
 * (a lost commit is covered by the next one, or re-delivers records the idempotent store already holds);
 * synchronously before partitions are revoked and on close ({@link #commitNow}). Only offsets of batches whose rows
 * are durable and whose dead letters are acknowledged ever get here. The consumer's thread only.
 */
final class OffsetCommits {

    private static final Logger LOG = Logger.getLogger(OffsetCommits.class);
    /**
     * How often at most the offsets of the batches stored since the last commit are committed: a commit per batch
     * cost the broker an offset-commit request (an append to its offsets topic) for every few records at 1,000
     * records/s, where batches are small (docs/benchmarks.md, "Decisions"). A crash re-delivers up to this much
     * more, into a store that holds it already; an idle ingest comes round every poll, so the last batch is
     * committed within both.
     */
    static final Duration INTERVAL = Duration.ofMillis(100);
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(5);

    private final String topic;
    private final Refusals refusals;
    private final IngestMetrics metrics;
    private final Map<TopicPartition, OffsetAndMetadata> uncommitted = new HashMap<>();
    private long lastSent = System.nanoTime();

    OffsetCommits(String topic, Refusals refusals, IngestMetrics metrics) {
        this.topic = topic;
        this.refusals = refusals;
        this.metrics = metrics;
    }

    /** A batch went through: its offsets are to be committed (batches go through oldest first). */
    void wentThrough(Map<TopicPartition, OffsetAndMetadata> offsets) {
        uncommitted.putAll(offsets);
    }

    /** A new consumer starts from the committed offsets: what the failed one kept is read again. */
    void forget() {
        uncommitted.clear();
    }

    /** Commits what is kept, asynchronously, when {@link #INTERVAL} has passed since the last commit. */
    void commitIfDue(KafkaConsumer<byte[], byte[]> kafka) {
        if (System.nanoTime() - lastSent >= INTERVAL.toNanos()) {
            commit(kafka, false);
        }
    }

    /** Commits what is kept before returning; a failure leaves the records to be read again. */
    void commitNow(KafkaConsumer<byte[], byte[]> kafka) {
        commit(kafka, true);
    }

    private void commit(KafkaConsumer<byte[], byte[]> kafka, boolean sync) {
        if (uncommitted.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = Map.copyOf(uncommitted);
        uncommitted.clear();
        lastSent = System.nanoTime();
        if (sync) {
            try {
                kafka.commitSync(offsets, COMMIT_TIMEOUT);
                committed(offsets);
            } catch (KafkaException e) {
                LOG.warnf("offsets of %s not committed (their records will be read again): %s", topic, e);
            }
        } else {
            kafka.commitAsync(offsets, (done, commitFailure) -> {
                if (commitFailure == null) {
                    committed(done);
                } else {
                    LOG.debugf("offsets of %s not committed (a later commit covers them): %s", topic, commitFailure);
                }
            });
        }
    }

    private void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
        offsets.forEach((partition, offset) -> refusals.committed(partition, offset.offset()));
        metrics.committed();
    }
}
