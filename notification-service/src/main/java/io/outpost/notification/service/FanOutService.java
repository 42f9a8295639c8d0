package io.outpost.notification.service;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;
import io.outpost.model.event.NotificationEvent;
import io.outpost.notification.messaging.NotificationPublisher;
import io.outpost.notification.store.IdConflicts;
import io.outpost.notification.store.NewNotification;
import io.outpost.support.http.InvalidInputException;
import io.outpost.support.store.StoreUnavailableException;
import io.smallrye.mutiny.Uni;

/**
 * One notification for many players (docs/notifications.md, "Many players in one call"): a record per player on
 * {@code player-notifications}, keyed by the player, each with an id derived from the request id and the player,
 * so that the same request sent again gives the same ids and is stored once; sent again with other content it is
 * refused (409), as a create reusing an id is.
 */
@ApplicationScoped
public class FanOutService {

    /** Players in one call at most. */
    public static final int MAX_PLAYERS = 1_000;
    /** A request id's length at most (it is echoed in nothing, but bounded all the same). */
    public static final int MAX_REQUEST_ID = 128;
    /**
     * Bytes one call may send to Kafka in all: the notification's JSON times the players, computed from one copy
     * before any other is built.
     */
    public static final long MAX_TOTAL_BYTES = 16L << 20;

    private final NotificationPublisher publisher;
    private final IdConflicts conflicts;

    public FanOutService(NotificationPublisher publisher, IdConflicts conflicts) {
        this.publisher = publisher;
        this.conflicts = conflicts;
    }

    /**
     * Publishes {@code notification} for each of {@code playerUuids} and answers their ids, in order; 422 with every
     * fault of the request, together with {@code readFaults} (what did not read).
     */
    public Uni<List<String>> publish(String requestId, List<String> playerUuids, NotificationEvent notification,
            List<ErrorDetail> readFaults) {
        List<ErrorDetail> faults = new ArrayList<>(readFaults);
        List<Object> requestLoc = ErrorDetail.loc("body", "request_id");
        if (Constraints.required(faults, requestLoc, requestId)) {
            Constraints.text(faults, requestLoc, requestId, 1, MAX_REQUEST_ID);
        }
        List<UUID> players = players(faults, playerUuids);
        List<Object> notificationLoc = ErrorDetail.loc("body", "notification");
        if (Constraints.required(faults, notificationLoc, notification)) {
            faults.addAll(notification.validateContent(notificationLoc));
            if (notification.notificationId() != null) {
                faults.add(ErrorDetail.valueError(ErrorDetail.loc(notificationLoc, "notification_id"),
                        "each player's notification_id derives from request_id: send none"));
            }
        }
        if (!faults.isEmpty()) {
            throw new InvalidInputException(faults);
        }
        Instant created = notification.created() != null ? notification.created()
                : Instant.now().truncatedTo(ChronoUnit.MICROS);
        // every copy has the same size (a player's uuid and its derived id are 36 characters each), so one copy's
        // JSON bounds the whole call before any other is built: 1,000 copies of a 1 MB notification are refused
        // without ever being written
        long bytes = publisher.value(copy(notification, requestId, players.get(0), created))
                .getBytes(StandardCharsets.UTF_8).length;
        if (bytes > NotificationPublisher.MAX_VALUE_BYTES) {
            throw new InvalidInputException(List.of(ErrorDetail.valueError(notificationLoc,
                    "Notification should be at most " + NotificationPublisher.MAX_VALUE_BYTES + " bytes as JSON, not "
                            + bytes)));
        }
        long total = bytes * players.size();
        if (total > MAX_TOTAL_BYTES) {
            throw new InvalidInputException(List.of(ErrorDetail.valueError(notificationLoc, "the notification for "
                    + players.size() + " players is " + total + " bytes as JSON; a call sends at most "
                    + MAX_TOTAL_BYTES)));
        }
        List<NotificationEvent> events = new ArrayList<>(players.size());
        List<String> values = new ArrayList<>(players.size());
        for (UUID player : players) {
            NotificationEvent event = copy(notification, requestId, player, created);
            events.add(event);
            values.add(publisher.value(event));
        }
        List<String> ids = events.stream().map(NotificationEvent::notificationId).toList();
        // a request id sent again with other content is refused here, whatever became of the first copies (deleted,
        // expired, emptied), rather than answered 200 and dead-lettered by the ingest; while PostgreSQL does not
        // answer, the ingest's own comparison is the only one, as for a create
        NewNotification content = new NewNotification(players.get(0), ids.get(0), notification.message(),
                notification.svcUrl(), notification.customData(), notification.etag(), created);
        return conflicts.firstFannedOut(players, ids, content)
                .onFailure(StoreUnavailableException.class).recoverWithItem(-1)
                .invoke(found -> {
                    if (found >= 0) {
                        throw new IdConflictException(requestId, players.get(found), ids.get(found));
                    }
                })
                .chain(() -> publisher.publish(events, values)).replaceWith(ids);
    }

    /** The copy of {@code notification} for {@code player}. */
    private static NotificationEvent copy(NotificationEvent notification, String requestId, UUID player,
            Instant created) {
        return new NotificationEvent(player.toString(), notification.message(), notification.svcUrl(),
                notification.customData(), notification.etag(), id(requestId, player), created,
                notification.expiresAt());
    }

    /** The player's notification id of request {@code requestId}: the same whenever the request is sent again. */
    static String id(String requestId, UUID player) {
        return UUID.nameUUIDFromBytes(("fan-out\n" + requestId + "\n" + player).getBytes(StandardCharsets.UTF_8))
                .toString();
    }

    private static List<UUID> players(List<ErrorDetail> faults, List<String> playerUuids) {
        List<Object> at = ErrorDetail.loc("body", "player_uuids");
        if (!Constraints.required(faults, at, playerUuids)) {
            return List.of();
        }
        if (playerUuids.isEmpty()) {
            faults.add(ErrorDetail.tooShort(at, 1));
            return List.of();
        }
        if (playerUuids.size() > MAX_PLAYERS) {
            faults.add(ErrorDetail.tooLong(at, MAX_PLAYERS));
            return List.of();
        }
        List<UUID> players = new ArrayList<>(playerUuids.size());
        for (int i = 0; i < playerUuids.size(); i++) {
            List<Object> loc = ErrorDetail.loc(at, i);
            String raw = playerUuids.get(i);
            UUID player = Constraints.required(faults, loc, raw) && Constraints.text(faults, loc, raw)
                    ? Constraints.uuid(faults, loc, raw) : null;
            if (player != null) {
                players.add(player);
            }
        }
        return players;
    }
}
