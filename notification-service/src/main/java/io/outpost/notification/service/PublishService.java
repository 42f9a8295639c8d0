package io.outpost.notification.service;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.outpost.model.Limits;
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
            if (entry.playerUuid() != null && !entry.playerUuid().equalsIgnoreCase(player.toString())) {
                faults.add(ErrorDetail.literal(ErrorDetail.loc(loc, "player_uuid"), player.toString()));
            }
            events.add(new NotificationEvent(player.toString(), entry.message(), entry.svcUrl(), entry.customData(),
                    entry.etag(), entry.notificationId() != null ? entry.notificationId() : UUID.randomUUID().toString(),
                    entry.created() != null ? entry.created() : now));
        }
        if (!faults.isEmpty()) {
            throw new InvalidInputException(faults);
        }
        return publisher.publish(events).replaceWith(events.stream().map(NotificationEvent::notificationId).toList());
    }
}
