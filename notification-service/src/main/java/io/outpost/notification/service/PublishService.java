package io.outpost.notification.service;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.outpost.model.Limits;
import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;
import io.outpost.model.event.NotificationEvent;
import io.outpost.notification.messaging.NotificationPublisher;
import io.outpost.support.http.InvalidInputException;
import io.smallrye.mutiny.Uni;

/** Validates notifications published over HTTP, gives each its id and time, and hands them to Kafka. */
@ApplicationScoped
public class PublishService {

    private final NotificationPublisher publisher;

    public PublishService(NotificationPublisher publisher) {
        this.publisher = publisher;
    }

    /**
     * Publishes {@code entries} for {@code player} and answers their ids, in order; 422 ({@link
     * InvalidInputException}) for every faulty entry, located under {@code body.notifications[i]}.
     */
    public Uni<List<String>> publish(UUID player, List<NotificationEvent> entries) {
        List<ErrorDetail> faults = new ArrayList<>();
        List<Object> at = ErrorDetail.loc("body", "notifications");
        if (entries == null) {
            throw new InvalidInputException(ErrorDetail.missing(at));
        }
        if (entries.size() < Limits.PUBLISH_BATCH_MIN) {
            faults.add(ErrorDetail.tooShort(at, Limits.PUBLISH_BATCH_MIN));
        } else if (entries.size() > Limits.PUBLISH_BATCH_MAX) {
            faults.add(ErrorDetail.tooLong(at, Limits.PUBLISH_BATCH_MAX));
        }
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        List<NotificationEvent> events = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            NotificationEvent entry = entries.get(i);
            List<Object> loc = ErrorDetail.loc(at, i);
            if (entry == null) {
                faults.add(ErrorDetail.missing(loc));
                continue;
            }
            faults.addAll(entry.validateContent(loc));
            List<Object> playerLoc = ErrorDetail.loc(loc, "player_uuid");
            if (Constraints.text(faults, playerLoc, entry.playerUuid()) && entry.playerUuid() != null
                    && !entry.playerUuid().equalsIgnoreCase(player.toString())) {
                faults.add(ErrorDetail.literal(playerLoc, player.toString()));
            }
            events.add(new NotificationEvent(player.toString(), entry.message(), entry.svcUrl(), entry.customData(),
                    entry.etag(), entry.notificationId() != null ? entry.notificationId() : UUID.randomUUID().toString(),
                    entry.created() != null ? entry.created() : now));
        }
        List<String> values = new ArrayList<>(events.size());
        if (faults.isEmpty()) {
            for (int i = 0; i < events.size(); i++) {
                String value = publisher.value(events.get(i));
                int bytes = value.getBytes(StandardCharsets.UTF_8).length;
                if (bytes > NotificationPublisher.MAX_VALUE_BYTES) {
                    faults.add(ErrorDetail.valueError(ErrorDetail.loc(at, i), "Notification should be at most "
                            + NotificationPublisher.MAX_VALUE_BYTES + " bytes as JSON, not " + bytes));
                }
                values.add(value);
            }
        }
        if (!faults.isEmpty()) {
            throw new InvalidInputException(faults);
        }
        return publisher.publish(events, values).replaceWith(events.stream().map(NotificationEvent::notificationId).toList());
    }
}
