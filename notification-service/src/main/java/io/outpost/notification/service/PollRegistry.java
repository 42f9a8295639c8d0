package io.outpost.notification.service;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.model.error.ErrorResponse;
import io.outpost.notification.config.NotificationConfig;
import io.outpost.notification.store.NotificationStore;
import io.smallrye.mutiny.Multi;
import io.vertx.core.Vertx;

/**
 * The long polls this instance holds, by player: admits a poll within the limits (per player, per instance),
 * routes wake-ups to the polls of a player, and answers every held poll when the instance stops.
 *
 * <p>When wake-ups may have been missed (the LISTEN connection was re-established) or held polls could not look
 * for notifications (the store was unreachable), {@link #recheck()} reads the heads of all held players in a few
 * batched queries and moves on only the polls that are behind — never one query per held poll at once.
 */
@ApplicationScoped
public class PollRegistry {

    private static final Logger LOG = Logger.getLogger(PollRegistry.class);
    /** Players per head query of a recheck. */
    private static final int RECHECK_CHUNK = 1000;
    private static final long RECHECK_RETRY_MS = 1000;

    private final ConcurrentHashMap<UUID, Set<HeldPoll>> byPlayer = new ConcurrentHashMap<>();
    private final AtomicInteger held = new AtomicInteger();
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private final int maxPerPlayer;
    private final int maxPolls;
    private final NotificationStore store;
    private final Vertx vertx;
    private final AtomicBoolean recheckRunning = new AtomicBoolean();
    private final AtomicBoolean recheckAgain = new AtomicBoolean();
    private final AtomicBoolean recheckScheduled = new AtomicBoolean();
    private volatile boolean closing;

    public PollRegistry(NotificationConfig config, MeterRegistry meters, NotificationStore store, Vertx vertx) {
        this.maxPerPlayer = config.maxPollsPerPlayer();
        this.maxPolls = config.maxPolls();
        this.store = store;
        this.vertx = vertx;
        meters.gauge("outpost.notification.polls.held", held);
        Gauge.builder("outpost.notification.polls.max", () -> maxPolls)
                .description("Long polls this instance holds at most (one more is answered 503)").register(meters);
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

    /**
     * Notifications {@code first..last} of {@code player} were stored (either {@code -1} when not said): its polls
     * that are not past them look again.
     */
    public void wake(UUID player, long first, long last) {
        Set<HeldPoll> polls = byPlayer.get(player);
        if (polls != null) {
            polls.forEach(poll -> poll.wake(first, last));
        }
    }

    /**
     * Wake-ups may have been missed, or held polls could not look: reads the heads of every held player, a chunk
     * of players per query, and wakes the polls that are behind. While the store cannot answer it tries again
     * every second; a recheck asked for while one runs runs once more after it.
     */
    public void recheck() {
        if (!recheckRunning.compareAndSet(false, true)) {
            recheckAgain.set(true);
            return;
        }
        recheckAgain.set(false);
        List<UUID> players = new ArrayList<>(byPlayer.keySet());
        Multi.createFrom().iterable(chunks(players))
                .onItem().transformToUniAndConcatenate(store::heads)
                .subscribe().with(this::wakeBehind, failure -> {
                    LOG.debugf("recheck of held polls failed (%s); again in %d ms", failure.getMessage(), RECHECK_RETRY_MS);
                    recheckRunning.set(false);
                    recheckSoon();
                }, () -> {
                    recheckRunning.set(false);
                    if (recheckAgain.get()) {
                        recheck();
                    }
                });
    }

    /** A held poll could not look for notifications: one recheck in a second, however many ask for it. */
    void recheckSoon() {
        if (recheckScheduled.compareAndSet(false, true)) {
            vertx.setTimer(RECHECK_RETRY_MS, id -> {
                recheckScheduled.set(false);
                recheck();
            });
        }
    }

    private void wakeBehind(Map<UUID, Long> heads) {
        heads.forEach((player, head) -> wake(player, HeldPoll.UNKNOWN, head));
    }

    private static List<List<UUID>> chunks(List<UUID> players) {
        List<List<UUID>> chunks = new ArrayList<>();
        for (int i = 0; i < players.size(); i += RECHECK_CHUNK) {
            chunks.add(players.subList(i, Math.min(players.size(), i + RECHECK_CHUNK)));
        }
        return chunks;
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
