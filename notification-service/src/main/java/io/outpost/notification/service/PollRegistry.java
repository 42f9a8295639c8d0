package io.outpost.notification.service;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.model.error.ErrorResponse;
import io.outpost.notification.config.NotificationConfig;
import io.outpost.notification.store.NotificationStore;
import io.outpost.notification.store.StoredBatch;
import io.outpost.support.security.TokenVerifier;
import io.outpost.support.security.VerifiedToken;
import io.outpost.support.security.revocation.Revocation;
import io.outpost.support.security.revocation.RevocationList;
import io.smallrye.mutiny.Multi;
import io.vertx.core.Vertx;

/**
 * The long polls this instance holds, by player: admits a poll within the limits (per player, per instance),
 * brings it what is stored for its player, and answers every held poll when the instance stops.
 *
 * <p>No query stands between a stored notification and a poll held here: the ingest hands over what it has just
 * committed ({@link #stored}) and polls that follow on from it are answered from memory. Announcements of
 * notifications stored by another instance ({@link #announced}) move on only the polls not already past them,
 * and all those of one announcement are served by one query. A poll that re-polls with the cursor it was just
 * given is held without a query ({@link PlayerPolls}). After a LISTEN reconnect or a store outage,
 * {@link #recheck()} reads the heads of all held players in batched queries and moves on only the polls behind.
 *
 * <p>When a revocation arrives (the revocation feed, {@link RevocationList#onApplied}), the held polls it may touch —
 * those of its token ({@code jti}) or of its client — look at their token again, within
 * {@value #TOKEN_SWEEP_DELAY_MS} ms, and those of revoked tokens or disabled clients are answered 403
 * ({@link HeldPoll#endIfRefused}). Sweeps coalesce: at most one is pending, and it covers every revocation that
 * arrived meanwhile; a client that mints and revokes tokens in a loop makes its own polls look again, not every
 * poll the instance holds. Past {@value #MAX_PENDING_KEYS} distinct tokens and clients in one sweep, or when the
 * key set changed ({@link #sweepAllSoon}), every held poll looks.
 */
@ApplicationScoped
public class PollRegistry {

    private static final Logger LOG = Logger.getLogger(PollRegistry.class);
    /** Players per head query of a recheck. */
    private static final int RECHECK_CHUNK = 1000;
    private static final long RECHECK_RETRY_MS = 1000;
    /** How long a player is remembered after its last poll ended (for its next poll's continuation). */
    private static final long KEEP_IDLE_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Revocations arriving within this are looked at by one pass over the held polls. */
    static final long TOKEN_SWEEP_DELAY_MS = 50;
    /** How often, while polls are held, the key set is asked whether its refresh is due (it fetches only then). */
    private static final long KEY_REFRESH_CHECK_MS = 1000;
    /** Distinct revocation keys one sweep looks up by; past them it looks at every held poll. */
    static final int MAX_PENDING_KEYS = 10_000;

    private final ConcurrentHashMap<UUID, PlayerPolls> byPlayer = new ConcurrentHashMap<>();
    private final AtomicInteger held = new AtomicInteger();
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private final int maxPerPlayer;
    private final int maxOthersPerPlayer;
    private final int maxPolls;
    private final Vertx vertx;
    private final AtomicBoolean recheckRunning = new AtomicBoolean();
    private final AtomicBoolean recheckAgain = new AtomicBoolean();
    private final AtomicBoolean recheckScheduled = new AtomicBoolean();
    private final AtomicBoolean tokenSweepScheduled = new AtomicBoolean();
    /** Held polls by the keys of the revocations that would touch them ({@link #revocationKeys}). */
    private final ConcurrentHashMap<String, Set<HeldPoll>> byRevocationKey = new ConcurrentHashMap<>();
    /** Keys of the revocations that arrived since the last sweep began. */
    private final Set<String> pendingKeys = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean pendingAll = new AtomicBoolean();
    private final Counter tokenChecks;
    private final NotificationStore.Stored insertsHere = new NotificationStore.Stored() {
        @Override
        public void stored(StoredBatch batch) {
            PollRegistry.this.stored(batch);
        }

        @Override
        public void failed(Throwable failure) {
            recheckSoon(); // the insert may have committed without saying so (its announcement is skipped here)
        }
    };
    /** What a held poll may ask of its registry. */
    private final PollHost host = new PollHost() {
        @Override
        public boolean closing() {
            return closing;
        }

        @Override
        public void recheckSoon() {
            PollRegistry.this.recheckSoon();
        }

        @Override
        public void release(HeldPoll poll) {
            PollRegistry.this.release(poll);
        }
    };
    private final NotificationStore store;
    private final RevocationList revocations;
    private final TokenVerifier tokens;
    private long keyRefresher;
    private long sweeper;
    private volatile boolean closing;
    /** False while announcements may be missed (not listening): then no poll starts from memory. */
    private volatile boolean announcementsComplete;

    public PollRegistry(NotificationConfig config, MeterRegistry meters, NotificationStore store, Vertx vertx,
            RevocationList revocations, TokenVerifier tokens) {
        this.maxPerPlayer = config.maxPollsPerPlayer();
        this.maxOthersPerPlayer = config.maxOtherPollsPerPlayer();
        this.maxPolls = config.maxPolls();
        this.store = store;
        this.vertx = vertx;
        this.revocations = revocations;
        this.tokens = tokens;
        meters.gauge("outpost.notification.polls.held", held);
        tokenChecks = Counter.builder("outpost.notification.polls.token.checks")
                .description("Held polls that looked at their token again because a revocation or key change arrived")
                .register(meters);
        Gauge.builder("outpost.notification.polls.max", () -> maxPolls)
                .description("Long polls this instance holds at most (one more is answered 503)").register(meters);
    }

    /** Once built: told of this instance's inserts and of revocations, and sweeping idle players. */
    @PostConstruct
    void listen() {
        store.listen(insertsHere);
        revocations.onApplied(revocation -> tokenSweepSoon(revocation.key()));
        // a key retired or replaced ends the polls it opened: the key set is fetched when due even while no
        // request asks for it, and a change makes every held poll look at its token
        tokens.onKeysChanged(this::sweepAllSoon);
        keyRefresher = vertx.setPeriodic(KEY_REFRESH_CHECK_MS, id -> {
            if (held.get() > 0) {
                tokens.refreshKeysIfDue();
            }
        });
        sweeper = vertx.setPeriodic(TimeUnit.NANOSECONDS.toMillis(KEEP_IDLE_NANOS) / 2, id -> sweep());
    }

    /** What held polls may ask of this registry. */
    PollHost host() {
        return host;
    }

    /** Forgets players idle for a while; atomically with the check, so a poll admitted meanwhile is never lost. */
    private void sweep() {
        byPlayer.forEach((player, polls) -> {
            if (polls.idleFor(KEEP_IDLE_NANOS)) {
                byPlayer.computeIfPresent(player, (p, current) -> current.idleFor(KEEP_IDLE_NANOS) ? null : current);
            }
        });
    }

    /**
     * Called on the revocation feed's thread with the record's key ({@link Revocation#key}): the pass runs on an
     * event loop, once for a burst of revocations, over the polls they may touch.
     */
    private void tokenSweepSoon(String key) {
        if (pendingKeys.size() < MAX_PENDING_KEYS) {
            pendingKeys.add(key);
        } else {
            pendingAll.set(true);
        }
        scheduleTokenSweep();
    }

    /** Every held poll looks at its token again soon (the key set changed: a key that signed some may be gone). */
    public void sweepAllSoon() {
        pendingAll.set(true);
        scheduleTokenSweep();
    }

    private void scheduleTokenSweep() {
        if (tokenSweepScheduled.compareAndSet(false, true)) {
            vertx.setTimer(TOKEN_SWEEP_DELAY_MS, id -> {
                tokenSweepScheduled.set(false);
                tokenSweep();
            });
        }
    }

    private void tokenSweep() {
        if (pendingAll.getAndSet(false)) {
            pendingKeys.clear();
            byPlayer.values().forEach(polls -> polls.polls().forEach(this::check));
            return;
        }
        Set<HeldPoll> touched = new HashSet<>();
        for (Iterator<String> keys = pendingKeys.iterator(); keys.hasNext();) {
            Set<HeldPoll> polls = byRevocationKey.get(keys.next());
            keys.remove();
            if (polls != null) {
                touched.addAll(polls);
            }
        }
        touched.forEach(this::check);
    }

    private void check(HeldPoll poll) {
        tokenChecks.increment();
        poll.endIfRefused();
    }

    /** The keys of the revocation records that would revoke {@code poll}'s token: its client's, its own. */
    private static List<String> revocationKeys(HeldPoll poll) {
        VerifiedToken token = poll.token();
        List<String> keys = new ArrayList<>(2);
        if (token.clientId() != null) {
            keys.add(Revocation.client(token.clientId(), 0, 0, null).key());
        }
        if (token.jti() != null) {
            keys.add(Revocation.token(token.jti(), null, 0, null).key());
        }
        return keys;
    }

    private void indexByRevocationKeys(HeldPoll poll) {
        for (String key : revocationKeys(poll)) {
            byRevocationKey.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(poll);
        }
    }

    private void unindex(HeldPoll poll) {
        for (String key : revocationKeys(poll)) {
            byRevocationKey.computeIfPresent(key, (k, polls) -> {
                polls.remove(poll);
                return polls.isEmpty() ? null : polls;
            });
        }
    }

    @PreDestroy
    void stop() {
        vertx.cancelTimer(sweeper);
        vertx.cancelTimer(keyRefresher);
    }

    /**
     * Counts the poll against both limits, or refuses it (503 for the instance, 409 for the player: its own polls
     * and other readers' polls of it are limited apart, {@link PlayerPolls#add}). Answers
     * where it starts when that is known without a query (see {@link PlayerPolls#continuation}), else null.
     */
    Cursors.Start admit(HeldPoll poll) {
        if (held.incrementAndGet() > maxPolls) {
            held.decrementAndGet();
            throw new PollRefusedException(503, ErrorResponse.CONNECTION_LIMIT_REACHED,
                    "This instance holds its maximum of " + maxPolls + " long polls; retry shortly");
        }
        UUID player = poll.request().player();
        while (true) {
            PlayerPolls polls = byPlayer.computeIfAbsent(player, p -> new PlayerPolls());
            synchronized (polls) {
                if (byPlayer.get(player) != polls) {
                    continue; // swept away meanwhile
                }
                if (!polls.add(poll, maxPerPlayer, maxOthersPerPlayer)) {
                    held.decrementAndGet();
                    throw new PollRefusedException(409, ErrorResponse.TOO_MANY_LISTENING, poll.request().own()
                            ? "This player already holds " + maxPerPlayer + " long polls"
                            : "Other readers already hold " + maxOthersPerPlayer + " long polls of this player");
                }
                poll.watching(polls);
                indexByRevocationKeys(poll);
                return announcementsComplete ? polls.continuation(poll.request().excludeBefore()) : null;
            }
        }
    }

    void release(HeldPoll poll) {
        PlayerPolls polls = byPlayer.get(poll.request().player());
        if (polls != null) {
            polls.remove(poll);
        }
        unindex(poll);
        if (held.decrementAndGet() == 0 && closing) {
            drained.complete(null);
        }
    }

    /**
     * Notifications {@code first..last} of {@code player} were stored (by any instance; either is
     * {@link HeldPoll#UNKNOWN} when not said). One announcement of many players: {@link #announced(List)}.
     */
    public void announced(UUID player, long first, long last) {
        announced(List.of(new Announcement(player, first, last)));
    }

    /** One announcement of several players: the polls behind are served by one query together. */
    public void announced(List<Announcement> announcements) {
        List<HeldPoll.Need> needs = new ArrayList<>();
        for (Announcement a : announcements) {
            PlayerPolls polls = byPlayer.get(a.player());
            if (polls == null) {
                continue;
            }
            polls.announced(a.last());
            for (HeldPoll poll : polls.polls()) {
                HeldPoll.Need need = poll.announce(a.first(), a.last());
                if (need != null) {
                    needs.add(need);
                }
            }
        }
        fetch(needs);
    }

    /**
     * This instance committed {@code batch}: polls that follow on from it are answered from it, the others (a
     * gap to fill) by one query together.
     */
    private void stored(StoredBatch batch) {
        List<HeldPoll.Need> needs = new ArrayList<>();
        batch.players().forEach((player, part) -> {
            PlayerPolls polls = byPlayer.get(player);
            if (polls == null) {
                return;
            }
            polls.announced(part.last());
            for (HeldPoll poll : polls.polls()) {
                HeldPoll.Need need = poll.offer(part);
                if (need != null) {
                    needs.add(need);
                }
            }
        });
        fetch(needs);
    }

    /** One query for every poll that needs rows; each gets its own (or its failure). */
    private void fetch(List<HeldPoll.Need> needs) {
        if (needs.isEmpty()) {
            return;
        }
        store.after(needs.stream().map(HeldPoll.Need::want).toList()).subscribe().with(found -> {
            for (int i = 0; i < needs.size(); i++) {
                needs.get(i).poll().fetched(found.get(i));
            }
        }, failure -> needs.forEach(need -> need.poll().fetchFailed(failure)));
    }

    /**
     * Wake-ups may have been missed, or held polls could not look: reads the heads of every held player, a chunk
     * of players per query, and serves the polls that are behind. While the store cannot answer it tries again
     * every second; a recheck asked for while one runs runs once more after it.
     */
    public void recheck() {
        if (!recheckRunning.compareAndSet(false, true)) {
            recheckAgain.set(true);
            return;
        }
        recheckAgain.set(false);
        List<UUID> players = new ArrayList<>();
        byPlayer.forEach((player, polls) -> {
            if (polls.size() > 0) {
                players.add(player);
            }
        });
        Multi.createFrom().iterable(chunks(players))
                .onItem().transformToUniAndConcatenate(store::heads)
                .subscribe().with(this::serveBehind, failure -> {
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

    /**
     * Whether every announcement reaches this instance (it listens). When that stops, what was remembered for
     * continuations is forgotten, since announcements may be missed from then on.
     */
    public void announcementsComplete(boolean complete) {
        if (!complete) {
            announcementsComplete = false;
            byPlayer.values().forEach(PlayerPolls::forgetContinuation);
        } else {
            byPlayer.values().forEach(PlayerPolls::forgetContinuation);
            announcementsComplete = true;
        }
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

    private void serveBehind(Map<UUID, Long> heads) {
        List<HeldPoll.Need> needs = new ArrayList<>();
        heads.forEach((player, head) -> {
            PlayerPolls polls = byPlayer.get(player);
            if (polls != null) {
                for (HeldPoll poll : polls.polls()) {
                    HeldPoll.Need need = poll.announce(HeldPoll.UNKNOWN, head);
                    if (need != null) {
                        needs.add(need);
                    }
                }
            }
        });
        fetch(needs);
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
        PlayerPolls polls = byPlayer.get(player);
        return polls == null ? 0 : polls.size();
    }

    /** Polls of {@code player} that are started and waiting (none of their queries in flight). */
    public int waitingBy(UUID player) {
        PlayerPolls polls = byPlayer.get(player);
        return polls == null ? 0 : (int) polls.polls().stream().filter(HeldPoll::waiting).count();
    }

    /**
     * Answers every held poll with an empty page and its cursor, makes new polls answer at once, and waits
     * (at most {@code grace}) until all are answered.
     */
    public void answerAll(Duration grace) {
        closing = true;
        byPlayer.values().forEach(polls -> polls.polls().forEach(HeldPoll::answerEmpty));
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

    /** Notifications {@code first..last} of a player were stored ({@link HeldPoll#UNKNOWN} when not said). */
    public record Announcement(UUID player, long first, long last) {
    }
}
