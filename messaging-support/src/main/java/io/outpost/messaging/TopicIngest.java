package io.outpost.messaging;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.model.error.ErrorDetail;
import io.outpost.support.json.JsonFaults;
import io.quarkus.vertx.VertxContextSupport;

/**
 * At-least-once ingest of one topic into a {@link BatchStore}, on a thread of its own.
 *
 * <p>Each polled batch is parsed (JSON into {@code E}) and validated; every refused record is sent to the
 * dead-letter topic with its reason, every valid one goes to the store in one call. Only when both the dead
 * letters are acknowledged and the store has completed are the batch's offsets committed. Any failure
 * (database down, broker gone) rewinds to the batch's first offsets and tries again after a growing pause, so
 * nothing is skipped and a bad record never blocks its partition. A crash between store and commit
 * re-delivers the batch; stores are idempotent, so nothing is stored twice.
 */
public final class TopicIngest<E> implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(TopicIngest.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final long MAX_BACKOFF_MS = 5000;

    private final String topic;
    private final Class<E> type;
    private final ObjectMapper mapper;
    private final EventValidator<E> validator;
    private final BatchStore<E> store;
    private final Properties consumerProps;
    private final DeadLetters deadLetters;
    private final Thread thread;
    private final AtomicLong stored = new AtomicLong();
    private final AtomicLong deadLettered = new AtomicLong();
    private volatile boolean running;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile Throwable lastFailure;

    private TopicIngest(Builder<E> builder) {
        this.topic = builder.topic;
        this.type = builder.type;
        this.mapper = Objects.requireNonNull(builder.mapper, "mapper");
        this.validator = Objects.requireNonNull(builder.validator, "validator");
        this.store = Objects.requireNonNull(builder.store, "store");
        this.consumerProps = new Properties();
        consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, Objects.requireNonNull(builder.bootstrapServers));
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, Objects.requireNonNull(builder.groupId, "groupId"));
        consumerProps.put(ConsumerConfig.CLIENT_ID_CONFIG, builder.groupId + "-" + topic);
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProps.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, builder.maxBatch);
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        this.deadLetters = new DeadLetters(builder.bootstrapServers, builder.groupId + "-" + topic + "-dlq");
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

    /** True while the consumer thread runs (it only stops when closed). */
    public boolean isRunning() {
        return thread.isAlive();
    }

    /** The last failure the loop is retrying, or null when the last batch went through. */
    public Throwable lastFailure() {
        return lastFailure;
    }

    public long storedCount() {
        return stored.get();
    }

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

    private void run() {
        long backoff = 0;
        try (KafkaConsumer<byte[], byte[]> kafka =
                new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer = kafka;
            kafka.subscribe(List.of(topic));
            Set<String> lettered = new HashSet<>();
            while (running) {
                ConsumerRecords<byte[], byte[]> records;
                try {
                    records = kafka.poll(POLL);
                } catch (WakeupException e) {
                    break;
                }
                if (records.isEmpty()) {
                    continue;
                }
                try {
                    process(kafka, records, lettered);
                    lettered.clear();
                    lastFailure = null;
                    backoff = 0;
                } catch (WakeupException e) {
                    rewind(kafka, records); // not committed: re-delivered to whoever owns the partition next
                    break;
                } catch (Throwable failure) {
                    lastFailure = failure;
                    backoff = backoff == 0 ? 100 : Math.min(MAX_BACKOFF_MS, backoff * 2);
                    LOG.warnf("ingest of %s failed, retrying the batch in %d ms: %s", topic, backoff, failure.toString());
                    rewind(kafka, records);
                    pause(backoff);
                }
            }
        } catch (Throwable fatal) {
            lastFailure = fatal;
            LOG.errorf(fatal, "ingest of %s stopped", topic);
        } finally {
            consumer = null;
        }
    }

    private void process(KafkaConsumer<byte[], byte[]> kafka, ConsumerRecords<byte[], byte[]> records,
            Set<String> lettered) throws Throwable {
        List<Consumed<E>> valid = new ArrayList<>(records.count());
        List<Future<RecordMetadata>> letters = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
            List<ErrorDetail> faults = new ArrayList<>();
            E event = parse(record, faults);
            if (event != null) {
                faults.addAll(validator.validate(key, event));
            }
            if (faults.isEmpty()) {
                valid.add(new Consumed<>(key, event, record.topic(), record.partition(), record.offset(),
                        record.timestamp()));
            } else if (lettered.add(record.partition() + "/" + record.offset())) {
                letters.add(deadLetters.send(record,
                        faults.stream().map(ErrorDetail::describe).collect(Collectors.joining("; "))));
            }
        }
        if (!valid.isEmpty()) {
            VertxContextSupport.subscribeAndAwait(() -> store.store(valid));
        }
        for (Future<RecordMetadata> letter : letters) {
            letter.get(30, TimeUnit.SECONDS);
        }
        kafka.commitSync(nextOffsets(records));
        stored.addAndGet(valid.size());
        deadLettered.addAndGet(letters.size());
    }

    private E parse(ConsumerRecord<byte[], byte[]> record, List<ErrorDetail> faults) {
        if (record.value() == null || record.value().length == 0) {
            faults.add(ErrorDetail.missing(ErrorDetail.loc("value")));
            return null;
        }
        try {
            E event = mapper.readValue(record.value(), type);
            if (event == null) {
                faults.add(ErrorDetail.missing(ErrorDetail.loc("value")));
            }
            return event;
        } catch (JsonProcessingException e) {
            faults.add(JsonFaults.locate(e, ErrorDetail.loc("value")));
            return null;
        } catch (java.io.IOException e) {
            faults.add(ErrorDetail.jsonInvalid(ErrorDetail.loc("value"), "JSON decode error"));
            return null;
        }
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

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
        private int maxBatch = 500;

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

        /** Records per batch at most (one store call, one commit). */
        public Builder<E> maxBatch(int maxBatch) {
            this.maxBatch = maxBatch;
            return this;
        }

        public TopicIngest<E> build() {
            return new TopicIngest<>(this);
        }
    }
}
