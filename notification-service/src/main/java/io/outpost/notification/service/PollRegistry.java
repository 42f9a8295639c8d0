package io.outpost.notification.service;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.model.error.ErrorResponse;
import io.outpost.notification.config.NotificationConfig;

/**
 * The long polls this instance holds, by player: admits a poll within the limits (per player, per instance),
 * routes wake-ups to the polls of a player, and answers every held poll when the instance stops.
 */
@ApplicationScoped
public class PollRegistry {

    private static final Logger LOG = Logger.getLogger(PollRegistry.class);

    private final ConcurrentHashMap<UUID, Set<HeldPoll>> byPlayer = new ConcurrentHashMap<>();
    private final AtomicInteger held = new AtomicInteger();
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private final int maxPerPlayer;
    private final int maxPolls;
    private volatile boolean closing;

    public PollRegistry(NotificationConfig config, MeterRegistry meters) {
        this.maxPerPlayer = config.maxPollsPerPlayer();
        this.maxPolls = config.maxPolls();
        meters.gauge("outpost.notification.polls.held", held);
    }

    /** Counts the poll against both limits, or refuses it (503 for the instance, 409 for the player). */
    void admit(HeldPoll poll) {
        if (held.incrementAndGet() > maxPolls) {
            held.decrementAndGet();
            throw new PollRefusedException(503, ErrorResponse.CONNECTION_LIMIT_REACHED,
                    "This instance holds its maximum of " + maxPolls + " long polls; retry shortly");
        }
        boolean[] admitted = { false };
        byPlayer.compute(poll.request().player(), (player, polls) -> {
            Set<HeldPoll> current = polls == null ? new CopyOnWriteArraySet<>() : polls;
            if (current.size() < maxPerPlayer) {
                current.add(poll);
                admitted[0] = true;
            }
            return current.isEmpty() ? null : current;
        });
        if (!admitted[0]) {
            held.decrementAndGet();
            throw new PollRefusedException(409, ErrorResponse.TOO_MANY_LISTENING,
                    "This player already holds " + maxPerPlayer + " long polls");
        }
    }

    void release(HeldPoll poll) {
        byPlayer.computeIfPresent(poll.request().player(), (player, polls) -> {
            polls.remove(poll);
            return polls.isEmpty() ? null : polls;
        });
        if (held.decrementAndGet() == 0 && closing) {
            drained.complete(null);
        }
    }

    /** Ingest stored notifications for {@code player}: its polls look again. */
    public void wake(UUID player) {
        Set<HeldPoll> polls = byPlayer.get(player);
        if (polls != null) {
            polls.forEach(HeldPoll::wake);
        }
    }

    /** Wake-ups may have been lost (the listener reconnected): every poll looks again. */
    public void wakeAll() {
        byPlayer.values().forEach(polls -> polls.forEach(HeldPoll::wake));
    }

    /** Polls held right now (also the gauge {@code outpost_notification_polls_held}). */
    public int held() {
        return held.get();
    }

    /** Polls {@code player} holds on this instance. */
    public int heldBy(UUID player) {
        Set<HeldPoll> polls = byPlayer.get(player);
        return polls == null ? 0 : polls.size();
    }

    boolean closing() {
        return closing;
    }

    /**
     * Answers every held poll with an empty page and its cursor, makes new polls answer at once, and waits
     * (at most {@code grace}) until all are answered.
     */
    public void answerAll(Duration grace) {
        closing = true;
        byPlayer.values().forEach(polls -> polls.forEach(HeldPoll::answerEmpty));
        if (held.get() == 0) {
            return;
        }
        try {
            drained.get(grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warnf("%d long polls were still open when the grace of %s ran out", held.get(), grace);
        } catch (Exception e) {
            Thread.currentThread().interrupt();
        }
    }
}
