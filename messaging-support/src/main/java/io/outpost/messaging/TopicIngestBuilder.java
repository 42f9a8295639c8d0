package io.outpost.messaging;

import java.time.Duration;
import java.util.Objects;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.support.kafka.KafkaClientSettings;

/** How a {@link TopicIngest} consumes and stores one topic. */
public final class TopicIngestBuilder<E> {

    /** The consumer's {@code request.timeout.ms}: how long it waits on a broker that does not answer. */
    static final int REQUEST_TIMEOUT_MS = 5_000;
    final String topic;
    final Class<E> type;
    String bootstrapServers;
    String groupId;
    ObjectMapper mapper;
    EventValidator<E> validator;
    BatchStore<E> store;
    MeterRegistry meters;
    int maxBatch = 500;
    Duration storeTimeout = Duration.ofSeconds(30);
    Duration tooLargeLetterGiveUp = DeadLetters.TOO_LARGE_GIVE_UP;
    int storesInFlight = 1;

    TopicIngestBuilder(String topic, Class<E> type) {
        this.topic = topic;
        this.type = type;
    }

    public TopicIngestBuilder<E> bootstrapServers(String servers) {
        this.bootstrapServers = servers;
        return this;
    }

    /** All replicas of a service share one group, so each partition is ingested by one of them. */
    public TopicIngestBuilder<E> groupId(String groupId) {
        this.groupId = groupId;
        return this;
    }

    public TopicIngestBuilder<E> mapper(ObjectMapper mapper) {
        this.mapper = mapper;
        return this;
    }

    public TopicIngestBuilder<E> validator(EventValidator<E> validator) {
        this.validator = validator;
        return this;
    }

    public TopicIngestBuilder<E> store(BatchStore<E> store) {
        this.store = store;
        return this;
    }

    /** Where the metrics of docs/operations.md go (none are published without one). */
    public TopicIngestBuilder<E> meters(MeterRegistry meters) {
        this.meters = meters;
        return this;
    }

    /** Records per batch at most (one store call; offsets are committed every {@link OffsetCommits#INTERVAL} at most). */
    public TopicIngestBuilder<E> maxBatch(int maxBatch) {
        this.maxBatch = maxBatch;
        return this;
    }

    /** How long one store call may take before it counts as a timeout (retried). */
    public TopicIngestBuilder<E> storeTimeout(Duration storeTimeout) {
        this.storeTimeout = storeTimeout;
        return this;
    }

    /**
     * How long a dead letter Kafka refuses as too large is retried before its record is skipped (default
     * {@link DeadLetters#TOO_LARGE_GIVE_UP}): long enough for an operator to raise a dead-letter topic's
     * {@code max.message.bytes} set below the letter's bound, never for ever.
     */
    public TopicIngestBuilder<E> tooLargeLetterGiveUp(Duration giveUp) {
        this.tooLargeLetterGiveUp = giveUp;
        return this;
    }

    /**
     * Batches stored at once at most (default 1). Above 1 only for a store whose batches of different record
     * keys may commit in any order: a batch joins those in flight only when it shares no key with them.
     */
    public TopicIngestBuilder<E> storesInFlight(int storesInFlight) {
        if (storesInFlight < 1) {
            throw new IllegalArgumentException("storesInFlight must be at least 1");
        }
        this.storesInFlight = storesInFlight;
        return this;
    }

    public TopicIngest<E> build() {
        return new TopicIngest<>(this);
    }

    /** A new consumer of raw records with {@link #consumerProperties()}. */
    KafkaConsumer<byte[], byte[]> newConsumer() {
        return new KafkaConsumer<>(consumerProperties(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** The consumer's settings: no auto-commit, from the earliest offset, committed records only. */
    Properties consumerProperties() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, Objects.requireNonNull(bootstrapServers));
        props.put(ConsumerConfig.GROUP_ID_CONFIG, Objects.requireNonNull(groupId, "groupId"));
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, groupId + "-" + topic);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxBatch);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // A replica that died is noticed after 10 s rather than Kafka's default 45 s, so its partitions are taken
        // over (and their players' notifications flow again) that much sooner after a crash.
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 3_000);
        // A broker that stops answering without closing its connections (frozen, partitioned) holds a fetch sent to
        // it until the request times out; only then does the consumer look for the partition's new leader. At
        // Kafka's default (30 s) the partitions of a frozen leader ingested nothing for 30 s although new leaders
        // were elected after 9 s (BrokerLeaderLossTest); a fetch is answered within fetch.max.wait.ms (0.5 s).
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, REQUEST_TIMEOUT_MS);
        props.putAll(KafkaClientSettings.configured());
        return props;
    }
}
