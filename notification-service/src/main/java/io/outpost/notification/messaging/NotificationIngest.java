package io.outpost.notification.messaging;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.inject.Singleton;

import org.apache.kafka.common.record.RecordBatch;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.messaging.ConsumedTopic;
import io.outpost.messaging.Consumed;
import io.outpost.messaging.RecordKeys;
import io.outpost.model.Topics;
import io.outpost.model.error.ErrorDetail;
import io.outpost.model.event.NotificationEvent;
import io.outpost.notification.config.NotificationConfig;
import io.outpost.notification.store.DatabaseConnections;
import io.outpost.notification.store.NewNotification;
import io.outpost.notification.store.NotificationStore;
import io.smallrye.mutiny.Uni;

/**
 * Consumes {@code player-notifications} into the store (DESIGN §4), at least once: offsets are committed after
 * the batch's transaction, and re-delivered records are stored once, since the id of an event that has none
 * is derived from where the record sits in the topic.
 */
@Singleton
public class NotificationIngest extends ConsumedTopic<NotificationEvent> {

    private static final long EARLIEST_MILLIS = Instant.parse("0001-01-01T00:00:00Z").toEpochMilli();
    private static final long LATEST_MILLIS = Instant.parse("9999-12-31T23:59:59Z").toEpochMilli();

    private static final List<Object> VALUE = ErrorDetail.loc("value");

    private final NotificationStore store;

    public NotificationIngest(NotificationStore store, ObjectMapper mapper, MeterRegistry meters,
            NotificationConfig config, @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers) {
        super(Topics.PLAYER_NOTIFICATIONS, NotificationEvent.class, mapper, meters, new Settings(bootstrapServers,
                config.consumerGroup(), config.ingestBatchSize(), config.ingestEnabled(),
                config.ingestStoreTimeout(), DatabaseConnections.INGEST_CONNECTIONS));
        this.store = store;
    }

    /** Spec §2.2 and DESIGN §4, plus the record key: exactly the event's player (per-player ordering). */
    @Override
    protected List<ErrorDetail> validate(String key, NotificationEvent event) {
        List<ErrorDetail> faults = event.validate(VALUE);
        RecordKeys.requireCanonical(faults, key, event.playerUuid());
        return faults;
    }

    @Override
    protected Uni<Void> store(List<Consumed<NotificationEvent>> batch) {
        List<NewNotification> rows = new ArrayList<>(batch.size());
        for (Consumed<NotificationEvent> consumed : batch) {
            NotificationEvent e = consumed.event();
            rows.add(new NewNotification(e.player(), e.notificationId() != null ? e.notificationId() : derivedId(consumed),
                    e.message(), e.svcUrl(), e.customData(), e.etag(),
                    e.created() != null ? e.created() : recordTime(consumed), e.expiresAt()));
        }
        return store.insert(rows).replaceWithVoid();
    }

    /**
     * When an event has no {@code created}: its record's timestamp, unless the record has none (-1) or one no
     * reader could take (outside years 1..9999) — then the time of ingest.
     */
    private static Instant recordTime(Consumed<?> consumed) {
        long millis = consumed.timestamp();
        return millis >= EARLIEST_MILLIS && millis <= LATEST_MILLIS && millis != RecordBatch.NO_TIMESTAMP
                ? Instant.ofEpochMilli(millis) : Instant.now();
    }

    /** The same for every delivery of the record, so a re-delivery is recognised as a repeat. */
    private static String derivedId(Consumed<?> consumed) {
        String where = consumed.topic() + "/" + consumed.partition() + "/" + consumed.offset() + "/" + consumed.timestamp();
        return UUID.nameUUIDFromBytes(where.getBytes(StandardCharsets.UTF_8)).toString();
    }
}
