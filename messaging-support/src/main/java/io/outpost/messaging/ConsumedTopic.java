package io.outpost.messaging;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.model.error.ErrorDetail;
import io.smallrye.mutiny.Uni;

/**
 * A topic a service consumes into its store: what a record must be ({@link #validate}) and how a batch is
 * stored ({@link #store}). {@link Ingests} starts every one with the application (unless disabled), stops it
 * before the application stops, and reports it to liveness. A service declares one as a {@code @Singleton}.
 */
public abstract class ConsumedTopic<E> {

    /**
     * Where and how to consume; {@code storeTimeout}: how long one {@link #store} call may take before it is
     * abandoned and retried (a timeout); {@code storesInFlight}: batches stored at once at most, above 1 only
     * when the store takes batches of different record keys in any order (see {@link TopicIngestBuilder#storesInFlight}).
     */
    public record Settings(String bootstrapServers, String groupId, int maxBatch, boolean enabled,
            Duration storeTimeout, int storesInFlight) {

        /** One batch stored at a time. */
        public Settings(String bootstrapServers, String groupId, int maxBatch, boolean enabled, Duration storeTimeout) {
            this(bootstrapServers, groupId, maxBatch, enabled, storeTimeout, 1);
        }
    }

    private final String topic;
    private final Class<E> type;
    private final ObjectMapper mapper;
    private final MeterRegistry meters;
    private final Settings settings;
    private TopicIngest<E> ingest;

    protected ConsumedTopic(String topic, Class<E> type, ObjectMapper mapper, MeterRegistry meters, Settings settings) {
        this.topic = topic;
        this.type = type;
        this.mapper = mapper;
        this.meters = meters;
        this.settings = settings;
    }

    /** The faults of a parsed event given its record key (see {@link RecordKeys}); empty when it may be stored. */
    protected abstract List<ErrorDetail> validate(String key, E event);

    /** Stores a batch of valid events durably and idempotently (see {@link BatchStore}). */
    protected abstract Uni<Void> store(List<Consumed<E>> batch);

    public String topic() {
        return topic;
    }

    /** Whether this instance consumes the topic at all (off for a read-only replica). */
    public boolean enabled() {
        return settings.enabled();
    }

    /** Starts consuming (again); a no-op while running. */
    public synchronized void start() {
        if (ingest != null) {
            return;
        }
        ingest = TopicIngest.builder(topic, type)
                .bootstrapServers(settings.bootstrapServers())
                .groupId(settings.groupId())
                .maxBatch(settings.maxBatch())
                .mapper(mapper)
                .meters(meters)
                .validator(this::validate)
                .store(this::store)
                .storeTimeout(settings.storeTimeout())
                .storesInFlight(settings.storesInFlight())
                .build()
                .start();
    }

    /** Stops after the batch in hand; what is not committed is consumed again by the next start (or replica). */
    public synchronized void stop() {
        if (ingest != null) {
            ingest.close();
            ingest = null;
        }
    }

    /** The running ingest; empty when stopped or disabled. */
    public synchronized Optional<TopicIngest<E>> running() {
        return Optional.ofNullable(ingest);
    }
}
