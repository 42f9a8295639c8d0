package io.outpost.messaging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.messaging.Refusals.Refusal;
import io.outpost.support.kafka.KafkaClientSettings;
import io.outpost.support.store.StoreFault;
import io.outpost.support.store.StoreUnavailableException;
import io.quarkus.vertx.VertxContextSupport;
import io.vertx.pgclient.PgException;

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
 */
public final class TopicIngest<E> implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(TopicIngest.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final long MAX_BACKOFF_MS = 5000;
    private static final long LETTER_TIMEOUT_MS = 30_000;
    /** A loop that has not come round for this long is stuck, which only a restart repairs. */
    private static final long STALL_NANOS = TimeUnit.MINUTES.toNanos(5);

    private final String topic;
    private final BatchStore<E> store;
    private final RecordParser<E> parser;
    private final Duration storeTimeout;
    private final Properties consumerProps;
    private final DeadLetters deadLetters;
    private final IngestMetrics metrics;
    private final Refusals refusals = new Refusals();
    private final Thread thread;
    private final AtomicLong stored = new AtomicLong();
    private final AtomicLong deadLettered = new AtomicLong();
    private volatile boolean running;
    private volatile long heartbeat = System.nanoTime();
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile Throwable lastFailure;

    private TopicIngest(Builder<E> builder) {
        this.topic = builder.topic;
        this.store = Objects.requireNonNull(builder.store, "store");
        this.parser = new RecordParser<>(builder.type, Objects.requireNonNull(builder.mapper, "mapper"),
                Objects.requireNonNull(builder.validator, "validator"));
        this.storeTimeout = builder.storeTimeout;
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
        this.thread = new Thread(this::run, "ingest-" + topic);
        this.thread.setDaemon(true);
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
        deadLetters.close();
    }

    /** Consumes until closed; a consumer that fails outside a batch (broker refuses it, ...) is made anew. */
    private void run() {
        long backoff = 0;
        while (running) {
            try (KafkaConsumer<byte[], byte[]> kafka =
                    new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                consumer = kafka;
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

    private void consume(KafkaConsumer<byte[], byte[]> kafka) {
        long backoff = 0;
        while (running) {
            heartbeat = System.nanoTime();
            ConsumerRecords<byte[], byte[]> records = kafka.poll(POLL);
            metrics.lag(lag(kafka));
            if (records.isEmpty()) {
                metrics.idle();
                continue;
            }
            try {
                ingest(kafka, records);
                lastFailure = null;
                backoff = 0;
            } catch (WakeupException e) {
                rewind(kafka, records); // not committed: re-delivered to whoever owns the partition next
                return;
            } catch (Throwable failure) {
                lastFailure = failure;
                String reason = failure instanceof KafkaException || failure instanceof LetterFailure ? "kafka"
                        : StoreFault.of(failure).label();
                metrics.retried(reason);
                backoff = next(backoff);
                LOG.warnf("ingest of %s failed (%s), retrying the batch in %d ms: %s", topic, reason, backoff, failure);
                rewind(kafka, records);
                pause(backoff);
            }
        }
    }

    /** One batch: dead letters and store, then the commit. Throws when the batch must be retried. */
    private void ingest(KafkaConsumer<byte[], byte[]> kafka, ConsumerRecords<byte[], byte[]> records) throws Throwable {
        List<Consumed<E>> valid = new ArrayList<>(records.count());
        Map<Consumed<E>, ConsumerRecord<byte[], byte[]>> sources = new IdentityHashMap<>();
        List<Letter> letters = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            Refusal refusal = refusals.refusal(partition, record.offset());
            Consumed<E> consumed = null;
            if (refusal == null) {
                RecordParser.Parsed<E> parsed = parser.parse(record);
                refusal = parsed.refusal();
                consumed = parsed.consumed();
                if (refusal != null) {
                    refusals.refuse(partition, record.offset(), refusal);
                }
            }
            if (consumed != null) {
                valid.add(consumed);
                sources.put(consumed, record);
            } else if (!refusals.lettered(partition, record.offset())) {
                letters.add(send(record, refusal));
            }
        }
        int count = storeIsolating(valid, sources, letters);
        awaitLetters(letters);
        Map<TopicPartition, OffsetAndMetadata> next = nextOffsets(records);
        kafka.commitSync(next);
        next.forEach((partition, offset) -> refusals.committed(partition, offset.offset()));
        metrics.committed();
        metrics.stored(count);
        stored.addAndGet(count);
    }

    /**
     * Stores {@code part}; when the store refuses it for its data, splits it in halves (in order) until each
     * refused record stands alone, dead-letters those and stores the rest. Answers how many were stored.
     */
    private int storeIsolating(List<Consumed<E>> part, Map<Consumed<E>, ConsumerRecord<byte[], byte[]>> sources,
            List<Letter> letters) throws Throwable {
        if (part.isEmpty()) {
            return 0;
        }
        try {
            VertxContextSupport.subscribeAndAwait(() -> store.store(part).ifNoItem().after(storeTimeout)
                    .failWith(() -> new StoreUnavailableException(StoreFault.TIMEOUT,
                            "the store did not complete within " + storeTimeout.toMillis() + " ms", null)));
            return part.size();
        } catch (Throwable failure) {
            if (StoreFault.of(failure) != StoreFault.DATA) {
                throw failure;
            }
            if (part.size() > 1) {
                int half = part.size() / 2;
                return storeIsolating(part.subList(0, half), sources, letters)
                        + storeIsolating(part.subList(half, part.size()), sources, letters);
            }
            ConsumerRecord<byte[], byte[]> record = sources.get(part.get(0));
            Refusal refusal = new Refusal("value: " + storeReason(failure) + " [store_refused]",
                    "store_refused");
            LOG.warnf("the store refused %s/%d/%d: %s", record.topic(), record.partition(), record.offset(),
                    refusal.reason());
            refusals.refuse(new TopicPartition(record.topic(), record.partition()), record.offset(), refusal);
            letters.add(send(record, refusal));
            return 0;
        }
    }

    private Letter send(ConsumerRecord<byte[], byte[]> record, Refusal refusal) {
        return new Letter(record, refusal, deadLetters.send(record, refusal.reason()));
    }

    /** Waits for every dead letter; records each acknowledged one, then fails if any was not. */
    private void awaitLetters(List<Letter> letters) throws LetterFailure {
        LetterFailure failed = null;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LETTER_TIMEOUT_MS);
        for (Letter letter : letters) {
            try {
                letter.sent().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                refusals.acknowledged(new TopicPartition(letter.record().topic(), letter.record().partition()),
                        letter.record().offset());
                deadLettered.incrementAndGet();
                metrics.deadLettered(letter.refusal().type());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LetterFailure(e);
            } catch (Exception e) {
                if (failed == null) {
                    failed = new LetterFailure(e);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    private long lag(KafkaConsumer<byte[], byte[]> kafka) {
        long total = 0;
        for (TopicPartition partition : kafka.assignment()) {
            total += kafka.currentLag(partition).orElse(0);
        }
        return total;
    }

    private static Map<TopicPartition, OffsetAndMetadata> nextOffsets(ConsumerRecords<byte[], byte[]> records) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition partition : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> inPartition = records.records(partition);
            offsets.put(partition, new OffsetAndMetadata(inPartition.get(inPartition.size() - 1).offset() + 1));
        }
        return offsets;
    }

    private static void rewind(KafkaConsumer<byte[], byte[]> kafka, ConsumerRecords<byte[], byte[]> records) {
        for (TopicPartition partition : records.partitions()) {
            try {
                kafka.seek(partition, records.records(partition).get(0).offset());
            } catch (IllegalStateException revoked) {
                // no longer ours: its next owner starts from the last committed offset
            }
        }
    }

    /** The store's words for a refusal, for the dead letter's reason. */
    private static String storeReason(Throwable failure) {
        Throwable t = failure;
        while (t.getCause() != null && !(t instanceof PgException)) {
            t = t.getCause();
        }
        if (t instanceof PgException pg) {
            return "the store refused it: " + pg.getErrorMessage() + " (SQLSTATE " + pg.getSqlState() + ")";
        }
        return "the store refused it: " + failure;
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

    /** A dead letter on its way, with the record it replaces. */
    private record Letter(ConsumerRecord<byte[], byte[]> record, Refusal refusal, Future<RecordMetadata> sent) {
    }

    /** Kafka did not acknowledge a dead letter: the batch is retried like a failed store. */
    private static final class LetterFailure extends Exception {
        LetterFailure(Throwable cause) {
            super("a dead letter was not acknowledged: " + cause, cause);
        }
    }

    /** Partitions handed to another instance: what was known about their uncommitted records goes. */
    private final class Forget implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            partitions.forEach(refusals::revoked);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            // starts from the committed offsets
        }
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

        /** Records per batch at most (one store call, one commit). */
        public Builder<E> maxBatch(int maxBatch) {
            this.maxBatch = maxBatch;
            return this;
        }

        /** How long one store call may take before it counts as a timeout (retried). */
        public Builder<E> storeTimeout(Duration storeTimeout) {
            this.storeTimeout = storeTimeout;
            return this;
        }

        public TopicIngest<E> build() {
            return new TopicIngest<>(this);
        }
    }
}
