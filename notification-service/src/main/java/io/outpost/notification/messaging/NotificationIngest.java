package io.outpost.notification.messaging;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.messaging.Consumed;
import io.outpost.messaging.TopicIngest;
import io.outpost.model.Topics;
import io.outpost.model.error.ErrorDetail;
import io.outpost.model.event.NotificationEvent;
import io.outpost.notification.config.NotificationConfig;
import io.outpost.notification.store.NewNotification;
import io.outpost.notification.store.NotificationStore;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;

/**
 * Consumes {@code player-notifications} into the store (DESIGN §4), at least once: offsets are committed after
 * the batch's transaction, and re-delivered records are stored once, since the id of an event that has none
 * is derived from where the record sits in the topic.
 */
@ApplicationScoped
public class NotificationIngest {

    private final NotificationStore store;
    private final ObjectMapper mapper;
    private final NotificationConfig config;
    private final String bootstrapServers;
    private TopicIngest<NotificationEvent> ingest;

    public NotificationIngest(NotificationStore store, ObjectMapper mapper, NotificationConfig config,
            @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers) {
        this.store = store;
        this.mapper = mapper;
        this.config = config;
        this.bootstrapServers = bootstrapServers;
    }

    void onStart(@Observes StartupEvent event) {
        if (config.ingestEnabled()) {
            start();
        }
    }

    void onStop(@Observes ShutdownEvent event) {
        stop();
    }

    /** Starts consuming (again); a no-op while running. */
    public synchronized void start() {
        if (ingest != null) {
            return;
        }
        ingest = TopicIngest.builder(Topics.PLAYER_NOTIFICATIONS, NotificationEvent.class)
                .bootstrapServers(bootstrapServers)
                .groupId(config.consumerGroup())
                .mapper(mapper)
                .validator(NotificationIngest::validate)
                .store(this::store)
                .maxBatch(config.ingestBatchSize())
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

    /** Spec §2.2 and DESIGN §4, plus the record key: it must be the event's player (per-player ordering). */
    static List<ErrorDetail> validate(String key, NotificationEvent event) {
        List<ErrorDetail> faults = new ArrayList<>(event.validate(ErrorDetail.loc("value")));
        if (key == null) {
            faults.add(ErrorDetail.missing(ErrorDetail.loc("key")));
        } else if (faults.isEmpty() && !key.equalsIgnoreCase(event.playerUuid())) {
            faults.add(ErrorDetail.literal(ErrorDetail.loc("key"), event.playerUuid()));
        }
        return faults;
    }

    private Uni<Void> store(List<Consumed<NotificationEvent>> batch) {
        List<NewNotification> rows = new ArrayList<>(batch.size());
        for (Consumed<NotificationEvent> consumed : batch) {
            NotificationEvent e = consumed.event();
            rows.add(new NewNotification(e.player(), e.notificationId() != null ? e.notificationId() : derivedId(consumed),
                    e.message(), e.svcUrl(), json(e), e.etag(),
                    e.created() != null ? e.created() : Instant.ofEpochMilli(consumed.timestamp())));
        }
        return store.insert(rows);
    }

    /** The same for every delivery of the record, so a re-delivery is recognised as a repeat. */
    private static String derivedId(Consumed<?> consumed) {
        String where = consumed.topic() + "/" + consumed.partition() + "/" + consumed.offset() + "/" + consumed.timestamp();
        return UUID.nameUUIDFromBytes(where.getBytes(StandardCharsets.UTF_8)).toString();
    }

    private String json(NotificationEvent event) {
        if (event.customData() == null) {
            return null;
        }
        try {
            return mapper.writeValueAsString(event.customData());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("custom_data read from JSON cannot be written back", e);
        }
    }
}
