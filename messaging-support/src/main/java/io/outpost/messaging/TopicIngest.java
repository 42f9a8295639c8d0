package io.outpost.messaging;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.jboss.logging.Logger;

import io.outpost.support.store.StoreFault;

/**
 * At-least-once ingest of one topic into a {@link BatchStore}: the consumer loop, on a thread of its own.
 *
 * <p>Each polled batch is parsed and validated ({@link BatchWork}, {@link RecordParser}); refused records go to the
 * dead-letter topic with their reason, valid ones to the store in one call; records the store refuses for their data
 * are split out and dead-lettered with its reason. The parts, each with one concern:
 * <ul>
 * <li>{@link InFlightBatches} — which batches are stored at once, and what happens as each finishes (per-key order,
 * offsets only after durable rows, one failure rewinding what was stored beside it);</li>
 * <li>{@link OffsetCommits} — when offsets are committed (every {@link OffsetCommits#INTERVAL} at most, at once
 * before a rebalance or close);</li>
 * <li>{@link Rewind} — where to read again after a failure; this loop retries after a growing pause
 * (100 ms … 5 s), skipping nothing.</li>
 * </ul>
 * A crash between store and commit re-delivers records; stores are idempotent, so nothing is stored twice.
 */
public final class TopicIngest<E> implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(TopicIngest.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final long MAX_BACKOFF_MS = 5000;
    /** A loop that has not come round for this long is stuck, which only a restart repairs. */
    private static final long STALL_NANOS = TimeUnit.MINUTES.toNanos(5);

    private final String topic;
    private final Supplier<KafkaConsumer<byte[], byte[]>> consumers;
    private final DeadLetters deadLetters;
    private final IngestMetrics metrics;
    private final BatchWork.Context<E> work;
    private final IngestCounts counts;
    private final OffsetCommits commits;
    private final InFlightBatches<E> inFlight;
    private final Refusals refusals;
    private final Thread thread;
    private volatile boolean running;
    private volatile long heartbeat = System.nanoTime();
    private volatile KafkaConsumer<byte[], byte[]> consumer;

    TopicIngest(TopicIngestBuilder<E> builder) {
        this.topic = builder.topic;
        this.consumers = builder::newConsumer;
        this.deadLetters = new DeadLetters(builder.bootstrapServers, builder.groupId + "-" + topic + "-dlq",
                builder.tooLargeLetterGiveUp);
        this.metrics = new IngestMetrics(topic, builder.meters);
        this.refusals = new Refusals();
        this.work = new BatchWork.Context<>(new RecordParser<>(builder.type,
                Objects.requireNonNull(builder.mapper, "mapper"), Objects.requireNonNull(builder.validator, "validator")),
                Objects.requireNonNull(builder.store, "store"), builder.storeTimeout, deadLetters, refusals, metrics);
        this.counts = new IngestCounts(metrics);
        this.commits = new OffsetCommits(topic, refusals, metrics);
        this.inFlight = new InFlightBatches<>(topic, builder.storesInFlight, commits, counts);
        this.thread = new Thread(this::run, "ingest-" + topic);
        this.thread.setDaemon(true);
    }

    public static <E> TopicIngestBuilder<E> builder(String topic, Class<E> type) {
        return new TopicIngestBuilder<>(topic, type);
    }

    public TopicIngest<E> start() {
        running = true;
        thread.start();
        return this;
    }

    /** False when the loop died or is stuck: only a restart repairs that (liveness DOWN). */
    public boolean isAlive() {
        return thread.isAlive() && System.nanoTime() - heartbeat < STALL_NANOS;
    }

    /** The last failure the loop is retrying, or null when the last batch went through. */
    public Throwable lastFailure() {
        return counts.lastFailure();
    }

    /** Records stored so far (a re-delivered record counts again). */
    public long storedCount() {
        return counts.stored();
    }

    /** Dead letters acknowledged so far. */
    public long deadLetteredCount() {
        return counts.deadLettered();
    }

    /** Stops after the batch in hand is stored and committed (or abandoned uncommitted, to be re-delivered). */
    @Override
    public void close() {
        running = false;
        KafkaConsumer<byte[], byte[]> current = consumer;
        if (current != null) {
            current.wakeup();
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        inFlight.shutdown();
        deadLetters.close();
    }

    /** Consumes until closed; a consumer that fails outside a batch (broker refuses it, ...) is made anew. */
    private void run() {
        long backoff = 0;
        while (running) {
            try (KafkaConsumer<byte[], byte[]> kafka = consumers.get()) {
                consumer = kafka;
                commits.forget(); // a failed consumer's: read again, into a store that holds them
                kafka.subscribe(List.of(topic), new Rebalance());
                consume(kafka);
                backoff = 0;
            } catch (WakeupException e) {
                // closing
            } catch (Throwable failure) {
                counts.failed(failure);
                metrics.retried("kafka");
                backoff = next(backoff);
                LOG.errorf(failure, "consumer of %s failed; starting a new one in %d ms", topic, backoff);
                pause(backoff);
            } finally {
                consumer = null;
            }
        }
    }

    /**
     * Polls and prepares the next batch while earlier ones are being stored; finishes the oldest when it must
     * ({@link InFlightBatches#before}); commits what went through when due; on a failure, discards the batch
     * prepared behind it and starts again from where the {@link Rewind} says.
     */
    private void consume(KafkaConsumer<byte[], byte[]> kafka) {
        long backoff = 0;
        try {
            while (running) {
                heartbeat = System.nanoTime();
                ConsumerRecords<byte[], byte[]> records = kafka.poll(inFlight.pollWait(POLL));
                metrics.lag(lag(kafka));
                BatchWork<E> next = records.isEmpty() ? null : BatchWork.prepare(work, records);
                int storing = inFlight.size();
                Rewind rewind = inFlight.retire(inFlight.before(next));
                if (rewind != null) {
                    if (next != null) {
                        rewind.alsoFrom(next.starts()); // its partitions the failed batches did not have
                    }
                    backoff = retry(kafka, rewind, backoff);
                    continue;
                }
                if (inFlight.size() < storing) {
                    backoff = 0;
                }
                commits.commitIfDue(kafka);
                if (next == null) {
                    if (inFlight.isEmpty()) {
                        metrics.idle();
                    }
                    continue;
                }
                if (!inFlight.isEmpty()) {
                    metrics.storedBeside();
                }
                inFlight.store(next);
            }
        } finally {
            inFlight.retire(inFlight.all()); // closing: what is stored is committed, the rest read again later
            commits.commitNow(kafka);
        }
    }

    /** Counts and logs a failed batch; starts again from where {@code rewind} says after a growing pause. */
    private long retry(KafkaConsumer<byte[], byte[]> kafka, Rewind rewind, long backoff) {
        Throwable failure = rewind.failure();
        counts.failed(failure);
        String reason = failure instanceof KafkaException || failure instanceof BatchWork.LetterFailure ? "kafka"
                : StoreFault.of(failure).label();
        metrics.retried(reason);
        long pause = next(backoff);
        LOG.warnf("ingest of %s failed (%s), retrying the batch in %d ms: %s", topic, reason, pause, failure);
        rewind.seek(kafka);
        pause(pause);
        return pause;
    }

    private long lag(KafkaConsumer<byte[], byte[]> kafka) {
        long total = 0;
        for (TopicPartition partition : kafka.assignment()) {
            total += kafka.currentLag(partition).orElse(0);
        }
        return total;
    }

    private static long next(long backoff) {
        return backoff == 0 ? 100 : Math.min(MAX_BACKOFF_MS, backoff * 2);
    }

    private void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        heartbeat = System.nanoTime();
    }

    /**
     * Partitions handed to another instance (called within poll, on the consumer's thread): the batches being
     * stored are finished and committed first, then what was known about uncommitted records goes.
     */
    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            KafkaConsumer<byte[], byte[]> kafka = consumer;
            if (kafka != null) {
                Rewind rewind = inFlight.retire(inFlight.all());
                commits.commitNow(kafka); // the batches before a failed one went through: theirs are committed too
                if (rewind != null) {
                    counts.failed(rewind.failure());
                    LOG.warnf("ingest of %s failed while its partitions were revoked (read again by their next owner): %s",
                            topic, rewind.failure());
                    // partitions of the failed batches that stay ours (a cooperative rebalance): read them again
                    rewind.from().forEach((partition, offset) -> {
                        if (!partitions.contains(partition)) {
                            Rewind.seek(kafka, partition, offset);
                        }
                    });
                }
            }
            partitions.forEach(refusals::revoked);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            // starts from the committed offsets
        }
    }
}
