package io.outpost.messaging;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.support.kafka.KafkaClientSettings;
import io.outpost.support.store.StoreFault;

/**
 * At-least-once ingest of one topic into a {@link BatchStore}, on a thread of its own.
 *
 * <p>Each polled batch is parsed and validated ({@link RecordParser}); refused records go to the dead-letter
 * topic with their reason, valid ones to the store in one call. When the store refuses the batch for its data
 * ({@link StoreFault#DATA}), the batch is split until the refused records are found: each is dead-lettered
 * with the store's reason and the rest is stored, in order. Offsets are committed only after the store has
 * completed and every dead letter is acknowledged. A failure that can heal (database or broker unreachable,
 * timeout, serialization failure, deadlock) rewinds to the batch's first offsets and retries after a growing
 * pause; nothing is skipped, and no dead letter already acknowledged is sent again. A crash between store and
 * commit re-delivers the batch; stores are idempotent, so nothing is stored twice.
 *
 * <p>The consumer's thread polls and prepares the next batch while store threads store earlier ones, so the time
 * between batches is not spent waiting. By default one batch is stored at a time; with
 * {@link Builder#storesInFlight} above 1, a batch that shares no record key with those in flight is stored beside
 * them, so a record does not wait for another key's commit (a key's records still reach the store one batch
 * after the other, in order). A batch's offsets are committed only once it and every batch before it went through:
 * asynchronously, at most every {@link #COMMIT_INTERVAL}, one commit for all batches stored since the last (a lost
 * commit is covered by the next one, or re-delivers records the idempotent store already holds); synchronously
 * before partitions are revoked and on close.
 */
public final class TopicIngest<E> implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(TopicIngest.class);
    private static final Duration POLL = Duration.ofMillis(200);
    /** While batches are being stored, with room for one more: how long a poll may wait before the loop looks again. */
    private static final Duration POLL_STORING = Duration.ofMillis(5);
    private static final long MAX_BACKOFF_MS = 5000;
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(5);
    /**
     * How often at most the offsets of the batches stored since the last commit are committed: a commit per batch
     * cost the broker an offset-commit request (an append to its offsets topic) for every few records at 1,000
     * records/s, where batches are small (docs/benchmarks.md, "eighteenth pass"). A crash re-delivers up to this
     * much more, into a store that holds it already; an idle loop comes round every {@link #POLL}, so the last
     * batch is committed within both.
     */
    static final Duration COMMIT_INTERVAL = Duration.ofMillis(100);
    /** A loop that has not come round for this long is stuck, which only a restart repairs. */
    private static final long STALL_NANOS = TimeUnit.MINUTES.toNanos(5);

    private final String topic;
    private final Properties consumerProps;
    private final DeadLetters deadLetters;
    private final IngestMetrics metrics;
    private final Refusals refusals = new Refusals();
    private final BatchWork.Context<E> work;
    private final Thread thread;
    /** Stores up to {@link #storesInFlight} batches at once, while the consumer's thread polls and prepares the next. */
    private final ExecutorService storer;
    private final int storesInFlight;
    private final AtomicLong stored = new AtomicLong();
    private final AtomicLong deadLettered = new AtomicLong();
    private volatile boolean running;
    private volatile long heartbeat = System.nanoTime();
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile Throwable lastFailure;
    /** The batches being stored, oldest first, with what their stores answer (the consumer's thread only). */
    private final ArrayDeque<Storing<E>> inFlight = new ArrayDeque<>();
    /** Offsets of the batches that went through since the last commit was sent (the consumer's thread only). */
    private final Map<TopicPartition, OffsetAndMetadata> uncommitted = new HashMap<>();
    private long lastCommitSent = System.nanoTime();

    private TopicIngest(Builder<E> builder) {
        this.topic = builder.topic;
        this.consumerProps = new Properties();
        consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, Objects.requireNonNull(builder.bootstrapServers));
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, Objects.requireNonNull(builder.groupId, "groupId"));
        consumerProps.put(ConsumerConfig.CLIENT_ID_CONFIG, builder.groupId + "-" + topic);
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProps.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, builder.maxBatch);
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // A replica that died is noticed after 10 s rather than Kafka's default 45 s, so its partitions are taken
        // over (and their players' notifications flow again) that much sooner after a crash.
        consumerProps.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        consumerProps.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 3_000);
        consumerProps.putAll(KafkaClientSettings.configured());
        this.deadLetters = new DeadLetters(builder.bootstrapServers, builder.groupId + "-" + topic + "-dlq");
        this.metrics = new IngestMetrics(topic, builder.meters);
        this.work = new BatchWork.Context<>(new RecordParser<>(builder.type, Objects.requireNonNull(builder.mapper, "mapper"),
                Objects.requireNonNull(builder.validator, "validator")), Objects.requireNonNull(builder.store, "store"),
                builder.storeTimeout, deadLetters, refusals, metrics);
        this.thread = new Thread(this::run, "ingest-" + topic);
        this.thread.setDaemon(true);
        this.storesInFlight = builder.storesInFlight;
        this.storer = Executors.newFixedThreadPool(storesInFlight, task -> {
            Thread t = new Thread(task, "ingest-store-" + topic);
            t.setDaemon(true);
            return t;
        });
    }

    public static <E> Builder<E> builder(String topic, Class<E> type) {
        return new Builder<>(topic, type);
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
        return lastFailure;
    }

    /** Records stored so far (a re-delivered record counts again). */
    public long storedCount() {
        return stored.get();
    }

    /** Dead letters acknowledged so far. */
    public long deadLetteredCount() {
        return deadLettered.get();
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
        storer.shutdownNow();
        deadLetters.close();
    }

    /** Consumes until closed; a consumer that fails outside a batch (broker refuses it, ...) is made anew. */
    private void run() {
        long backoff = 0;
        while (running) {
            try (KafkaConsumer<byte[], byte[]> kafka =
                    new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                consumer = kafka;
                uncommitted.clear(); // a failed consumer's: read again, into a store that holds them
                kafka.subscribe(List.of(topic), new Forget());
                consume(kafka);
                backoff = 0;
            } catch (WakeupException e) {
                // closing
            } catch (Throwable failure) {
                lastFailure = failure;
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
     * Polls, prepares and stores batches, with the next batch polled and prepared while earlier ones are being
     * stored (on the store's threads) and offsets committed asynchronously, oldest batch first. A batch is given to
     * the store beside those in flight only when none of them holds a record of the same key, so a key's records
     * are stored in their order; otherwise (or when {@link #storesInFlight} are in flight) it waits for the older
     * ones. A failed batch discards the one prepared behind it, waits for the later ones in flight without
     * committing them, and starts again from the failed one's first offsets.
     */
    private void consume(KafkaConsumer<byte[], byte[]> kafka) {
        long backoff = 0;
        try {
            while (running) {
                heartbeat = System.nanoTime();
                ConsumerRecords<byte[], byte[]> records = kafka.poll(inFlight.isEmpty() ? POLL
                        : inFlight.size() < storesInFlight ? POLL_STORING : Duration.ZERO);
                metrics.lag(lag(kafka));
                BatchWork<E> next = records.isEmpty() ? null : BatchWork.prepare(work, records);
                int storing = inFlight.size();
                // the oldest is waited for when it is done anyway, when there is no room beside it (nothing to do but
                // wait), or when the next batch shares a key with one in flight
                Rewind rewind = retire(kafka, false, oldest -> oldest.result().isDone()
                        || inFlight.size() >= storesInFlight || next != null && sharesKeyInFlight(next));
                if (rewind != null) {
                    backoff = retry(kafka, rewind, backoff, next);
                    continue;
                }
                if (inFlight.size() < storing) {
                    backoff = 0;
                }
                if (System.nanoTime() - lastCommitSent >= COMMIT_INTERVAL.toNanos()) {
                    commit(kafka, false);
                }
                if (next == null) {
                    if (inFlight.isEmpty()) {
                        metrics.idle();
                    }
                    continue;
                }
                if (!inFlight.isEmpty()) {
                    metrics.storedBeside();
                }
                inFlight.addLast(new Storing<>(next, storer.submit(next::store)));
            }
        } finally {
            retire(kafka, true, oldest -> true); // closing: what is stored is committed, the rest read again later
        }
    }

    /**
     * Commits the offsets of the batches that went through since the last commit ({@code sync}: before the call
     * returns), if any. A failed asynchronous commit is covered by the next; a failed synchronous one leaves the
     * records to be read again.
     */
    private void commit(KafkaConsumer<byte[], byte[]> kafka, boolean sync) {
        if (uncommitted.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = Map.copyOf(uncommitted);
        uncommitted.clear();
        lastCommitSent = System.nanoTime();
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

    /** Whether {@code next} has a record key in common with a batch in flight. */
    private boolean sharesKeyInFlight(BatchWork<E> next) {
        for (Storing<E> storing : inFlight) {
            if (storing.work().sharesKeyWith(next)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Finishes the oldest batches in flight while {@code retire} holds for the oldest: waits for each and keeps its
     * offsets to commit ({@code sync}: commits them, and any kept before, before the call returns). When one failed,
     * the batches after it are waited for and not committed, and the answer says where to read again; null when
     * every finished batch went through.
     */
    private Rewind retire(KafkaConsumer<byte[], byte[]> kafka, boolean sync, Predicate<Storing<E>> retire) {
        Rewind rewind = null;
        while (rewind == null && !inFlight.isEmpty() && retire.test(inFlight.peekFirst())) {
            Storing<E> oldest = inFlight.pollFirst();
            Throwable failure = finish(oldest);
            if (failure != null) {
                Map<TopicPartition, Long> from = oldest.work().starts();
                for (Storing<E> later; (later = inFlight.pollFirst()) != null;) {
                    // it may have stored its records: the store is idempotent, they are read again
                    if (outcome(later) == null) {
                        deadLettered.addAndGet(later.work().deadLettered()); // acknowledged: not sent again
                    }
                    later.work().starts().forEach(from::putIfAbsent);
                }
                rewind = new Rewind(failure, from);
            }
        }
        if (sync) {
            commit(kafka, true); // the batches before a failed one went through: theirs are committed too
        }
        return rewind;
    }

    /**
     * Waits for a batch given to the store; keeps its offsets to commit when it went through. Answers its failure,
     * or null.
     */
    private Throwable finish(Storing<E> storing) {
        Throwable failure = outcome(storing);
        if (failure != null) {
            return failure;
        }
        BatchWork<E> batch = storing.work();
        uncommitted.putAll(batch.offsets()); // batches finish oldest first: a later one's offset replaces an earlier
        int count = storing.count;
        lastFailure = null;
        stored.addAndGet(count);
        deadLettered.addAndGet(batch.deadLettered());
        metrics.stored(count);
        return null;
    }

    /** Waits for a batch's store to end; answers its failure, or null when it went through. */
    private Throwable outcome(Storing<E> storing) {
        try {
            storing.count = storing.result().get();
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
        offsets.forEach((partition, offset) -> refusals.committed(partition, offset.offset()));
        metrics.committed();
    }

    /** Counts and logs a failed batch; starts again from where {@code rewind} says after a growing pause. */
    private long retry(KafkaConsumer<byte[], byte[]> kafka, Rewind rewind, long backoff, BatchWork<E> discarded) {
        Throwable failure = rewind.failure();
        lastFailure = failure;
        String reason = failure instanceof KafkaException || failure instanceof BatchWork.LetterFailure ? "kafka"
                : StoreFault.of(failure).label();
        metrics.retried(reason);
        long pause = next(backoff);
        LOG.warnf("ingest of %s failed (%s), retrying the batch in %d ms: %s", topic, reason, pause, failure);
        Map<TopicPartition, Long> from = rewind.from();
        if (discarded != null) {
            discarded.starts().forEach(from::putIfAbsent); // its partitions the failed batches did not have
        }
        from.forEach((partition, offset) -> {
            try {
                kafka.seek(partition, offset);
            } catch (IllegalStateException revoked) {
                // no longer ours: its next owner starts from the last committed offset
            }
        });
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
     * Partitions handed to another instance (called within poll, on the consumer's thread): the batch being
     * stored is finished and committed first, then what was known about uncommitted records goes.
     */
    private final class Forget implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            KafkaConsumer<byte[], byte[]> kafka = consumer;
            if (kafka != null) {
                Rewind rewind = retire(kafka, true, oldest -> true);
                if (rewind != null) {
                    lastFailure = rewind.failure();
                    LOG.warnf("ingest of %s failed while its partitions were revoked (read again by their next owner): %s",
                            topic, rewind.failure());
                    // partitions of the failed batches that stay ours (a cooperative rebalance): read them again
                    rewind.from().forEach((partition, offset) -> {
                        if (!partitions.contains(partition)) {
                            try {
                                kafka.seek(partition, offset);
                            } catch (IllegalStateException notOurs) {
                                // not assigned any more either
                            }
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

    /** A batch given to the store, and what the store answers (its count once it went through). */
    private static final class Storing<E> {
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
    }

    /** Batches failed: why the first did, and the first offsets to read again, per partition. */
    private record Rewind(Throwable failure, Map<TopicPartition, Long> from) {
    }

    public static final class Builder<E> {
        private final String topic;
        private final Class<E> type;
        private String bootstrapServers;
        private String groupId;
        private ObjectMapper mapper;
        private EventValidator<E> validator;
        private BatchStore<E> store;
        private MeterRegistry meters;
        private int maxBatch = 500;
        private Duration storeTimeout = Duration.ofSeconds(30);
        private int storesInFlight = 1;

        private Builder(String topic, Class<E> type) {
            this.topic = topic;
            this.type = type;
        }

        public Builder<E> bootstrapServers(String servers) {
            this.bootstrapServers = servers;
            return this;
        }

        /** All replicas of a service share one group, so each partition is ingested by one of them. */
        public Builder<E> groupId(String groupId) {
            this.groupId = groupId;
            return this;
        }

        public Builder<E> mapper(ObjectMapper mapper) {
            this.mapper = mapper;
            return this;
        }

        public Builder<E> validator(EventValidator<E> validator) {
            this.validator = validator;
            return this;
        }

        public Builder<E> store(BatchStore<E> store) {
            this.store = store;
            return this;
        }

        /** Where the metrics of docs/operations.md go (none are published without one). */
        public Builder<E> meters(MeterRegistry meters) {
            this.meters = meters;
            return this;
        }

        /** Records per batch at most (one store call; offsets are committed every {@link #COMMIT_INTERVAL} at most). */
        public Builder<E> maxBatch(int maxBatch) {
            this.maxBatch = maxBatch;
            return this;
        }

        /** How long one store call may take before it counts as a timeout (retried). */
        public Builder<E> storeTimeout(Duration storeTimeout) {
            this.storeTimeout = storeTimeout;
            return this;
        }

        /**
         * Batches stored at once at most (default 1). Above 1 only for a store whose batches of different record
         * keys may commit in any order: a batch joins those in flight only when it shares no key with them.
         */
        public Builder<E> storesInFlight(int storesInFlight) {
            if (storesInFlight < 1) {
                throw new IllegalArgumentException("storesInFlight must be at least 1");
            }
            this.storesInFlight = storesInFlight;
            return this;
        }

        public TopicIngest<E> build() {
            return new TopicIngest<>(this);
        }
    }
}
