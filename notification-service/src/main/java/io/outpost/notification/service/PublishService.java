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
import io.outpost.notification.store.IdConflicts;
import io.outpost.notification.store.NewNotification;
import io.outpost.support.http.InvalidInputException;
import io.outpost.support.json.JsonBinding;
import io.outpost.support.store.StoreUnavailableException;
import io.smallrye.mutiny.Uni;

/**
 * Validates notifications published over HTTP, gives each its id and time, refuses an id the player already has
 * with other content (409), and hands them to Kafka.
 */
@ApplicationScoped
public class PublishService {

    private final NotificationPublisher publisher;
    private final IdConflicts conflicts;

    public PublishService(NotificationPublisher publisher, IdConflicts conflicts) {
        this.publisher = publisher;
        this.conflicts = conflicts;
    }

    /**
     * Publishes {@code entries} for {@code player} and answers their ids, in order; 422 ({@link
     * InvalidInputException}) for every faulty entry, located under {@code body.notifications[i]}, together with
     * {@code readFaults}, the values of the body that did not read (left out of {@code entries}).
     */
    public Uni<List<String>> publish(UUID player, List<NotificationEvent> entries, List<ErrorDetail> readFaults) {
        List<ErrorDetail> faults = new ArrayList<>();
        List<Object> at = ErrorDetail.loc("body", "notifications");
        // a read that stopped at its most faults has no entries, but a fault past the limit shows the list's length
        if (entries != null ? entries.size() > Limits.PUBLISH_BATCH_MAX
                : readFaults.stream().anyMatch(f -> entryIndex(f.loc(), at) >= Limits.PUBLISH_BATCH_MAX)) {
            // as pydantic does: a list too long is refused as such, its entries unexamined (a 1 MiB body of
            // 300,000 faulty entries would otherwise be answered with 300,000 faults)
            List<ErrorDetail> outside = readFaults.stream().filter(f -> entryIndex(f.loc(), at) < 0).toList();
            throw new InvalidInputException(JsonBinding.withChecks(outside,
                    List.of(ErrorDetail.tooLong(at, Limits.PUBLISH_BATCH_MAX))));
        }
        if (entries == null) {
            throw new InvalidInputException(readFaults.isEmpty() ? List.of(ErrorDetail.missing(at)) : readFaults);
        }
        if (entries.size() < Limits.PUBLISH_BATCH_MIN) {
            faults.add(ErrorDetail.tooShort(at, Limits.PUBLISH_BATCH_MIN));
        }
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        List<NotificationEvent> events = new ArrayList<>(entries.size());
        List<NewNotification> givenIds = new ArrayList<>();
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
                    entry.created() != null ? entry.created() : now, entry.expiresAt()));
            if (entry.notificationId() != null) {
                givenIds.add(new NewNotification(player, entry.notificationId(), entry.message(), entry.svcUrl(),
                        entry.customData(), entry.etag(), now));
            }
        }
        List<String> values = new ArrayList<>(events.size());
        if (faults.isEmpty() && readFaults.isEmpty()) {
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
        if (!faults.isEmpty() || !readFaults.isEmpty()) {
            throw new InvalidInputException(JsonBinding.withChecks(readFaults, faults));
        }
        // an id of the caller's own may name a notification stored before: the same one again is published (and
        // stored once), one with other content is refused here rather than dead-lettered by the ingest. Publishing
        // needs only Kafka: while PostgreSQL does not answer, the ingest's own comparison is the only one
        Uni<Void> checked = givenIds.isEmpty() ? Uni.createFrom().voidItem()
                : conflicts.of(player, givenIds)
                        .onFailure(StoreUnavailableException.class).recoverWithItem(List.<Integer>of())
                        .invoke(found -> {
                            if (!found.isEmpty()) {
                                throw new IdConflictException(givenIds.get(found.get(0)).notificationId());
                            }
                        }).replaceWithVoid();
        return checked.chain(() -> publisher.publish(events, values))
                .replaceWith(events.stream().map(NotificationEvent::notificationId).toList());
    }

    /** The entry a fault is about: its index under {@code list}, or -1 when it is not about one entry. */
    private static int entryIndex(List<Object> loc, List<Object> list) {
        return loc.size() > list.size() && loc.subList(0, list.size()).equals(list)
                && loc.get(list.size()) instanceof Integer index ? index : -1;
    }
}
