package io.outpost.auth.service;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import io.outpost.auth.config.AuthConfig;
import io.outpost.auth.store.ClientRepository;
import io.outpost.support.security.revocation.Revocation;
import io.outpost.support.security.revocation.RevocationList;
import io.outpost.support.store.StoreUnavailableException;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.vertx.core.runtime.context.VertxContextSafetyToggle;
import io.smallrye.common.vertx.VertxContext;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * Client records held in memory so that a token grant needs no database round trip (time from the {@link Clock}). A record is trusted for
 * {@code client-cache-ttl}; up to twice that it is still answered while one background read refreshes it, so a
 * busy client never waits for PostgreSQL. Changes made through this replica apply at once ({@link #invalidate});
 * changes made through another replica apply here within 2 × {@code client-cache-ttl} — and a client-wide
 * revocation (disabled, secret rotated, tokens revoked) as soon as the revocation feed brings it, which drops the
 * client's record. Unknown ids are remembered
 * too (bounded, least used forgotten first), so that they cost what a known client costs.
 *
 * <p>Every read has the store deadline ({@link StoreCalls}). When PostgreSQL does not answer, a record already held
 * is served as it is (tokens keep flowing to known clients) and read again at most every few seconds; an id never
 * seen fails with {@link StoreUnavailableException} (503).
 *
 * <p>A secret proven by a slow check is remembered as its keyed fingerprint, per client and apart from the record,
 * so that it survives changes that keep the secret (permissions, enabling): only a new secret (or the end of a
 * rotation's grace period) asks for a slow check again.
 */
@Singleton
public class ClientDirectory {

    private static final Logger LOG = Logger.getLogger(ClientDirectory.class);
    private static final int MAX_UNKNOWN = 10_000;
    private static final int MAX_PROOFS = 100_000;
    /** While PostgreSQL does not answer, a held record is read again at most this often. */
    private static final long OUTAGE_RETRY_MILLIS = Duration.ofSeconds(5).toMillis();
    /** Change counters, one per stripe of client ids (see {@link #generations}). */
    private static final int STRIPES = 1024;

    /** A cached record ({@code client} null: no such client). */
    public static final class Entry {
        private final ClientSnapshot client;
        private final long readAtMillis;
        private final AtomicBoolean refreshing = new AtomicBoolean();
        /** Slow checks under way, by fingerprint: concurrent requests with the same secret share one. */
        private final Map<String, CompletableFuture<String>> checks = new ConcurrentHashMap<>();
        private volatile long servedStaleUntil;

        Entry(ClientSnapshot client, long readAtMillis) {
            this.client = client;
            this.readAtMillis = readAtMillis;
        }

        /** The client, or null when the id is unknown. */
        public ClientSnapshot client() {
            return client;
        }

        /** The slow checks under way for this client, each answering the hash the secret matched (or null). */
        Map<String, CompletableFuture<String>> checks() {
            return checks;
        }
    }

    /** A secret that passed a slow check: its fingerprint and the hash it matched. */
    private record Proof(byte[] fingerprint, String hash) {
    }

    private final Map<String, Entry> known = new ConcurrentHashMap<>();
    private final Cache<String, Entry> unknown = Caffeine.newBuilder().maximumSize(MAX_UNKNOWN)
            .executor(Runnable::run).build();
    private final Cache<String, Proof> proofs = Caffeine.newBuilder().maximumSize(MAX_PROOFS).build();
    /**
     * Changes per stripe of client ids: a read begun before a change to a client of its stripe is not cached. Per
     * stripe, not one counter for all, so that one client's changes (a revocation loop folding into its cut-off,
     * heard by every replica) never keep every other client's record from being cached.
     */
    private final AtomicLongArray generations = new AtomicLongArray(STRIPES);
    private final ClientRepository repository;
    private final Clock clock;
    private final long ttlMillis;
    private final StoreCalls store;

    public ClientDirectory(ClientRepository repository, AuthConfig config, Clock clock, StoreCalls store,
            RevocationList revocations) {
        this.repository = repository;
        this.clock = clock;
        this.ttlMillis = config.clientCacheTtl().toMillis();
        this.store = store;
        // a client-wide revocation made through another replica: its record is read again on the next request
        revocations.onApplied(revocation -> {
            if (Revocation.CLIENT.equals(revocation.type())) {
                invalidate(revocation.clientId());
            }
        });
    }

    /** The record of {@code clientId} (never null; its client is null for an unknown id). */
    public Uni<Entry> lookup(String clientId) {
        Entry entry = cached(clientId);
        if (entry != null) {
            long now = clock.millis();
            long age = now - entry.readAtMillis;
            if (age < ttlMillis || now < entry.servedStaleUntil) {
                return Uni.createFrom().item(entry);
            }
            if (age < 2 * ttlMillis) {
                if (entry.refreshing.compareAndSet(false, true)) {
                    refreshInBackground(clientId, entry);
                }
                return Uni.createFrom().item(entry);
            }
        }
        return read(clientId, entry);
    }

    /**
     * Reads a record again without making the request wait. On a context of its own: Panache shares one session
     * per context, and the request may read another record meanwhile (introspection reads two), whose session this
     * read would otherwise close under it.
     */
    private void refreshInBackground(String clientId, Entry entry) {
        // deferred: a read that fails while being built (no usable context) ends like one that fails later
        Runnable refresh = () -> Uni.createFrom().deferred(() -> read(clientId, entry)).subscribe().with(ignored -> {
        }, failure -> {
            entry.refreshing.set(false);
            LOG.debugf("could not refresh client %s: %s", clientId, failure.toString());
        });
        Context current = Vertx.currentContext();
        if (current == null) {
            refresh.run();
        } else {
            Context own = VertxContext.createNewDuplicatedContext(current);
            // Panache opens sessions only on a context flagged safe, as Quarkus flags each request's
            VertxContextSafetyToggle.setContextSafe(own, true);
            own.runOnContext(ignored -> refresh.run());
        }
    }

    /** Forgets a client's record after a change, so that the next request reads it again. */
    public void invalidate(String clientId) {
        generations.incrementAndGet(stripe(clientId));
        known.remove(clientId);
        unknown.invalidate(clientId);
    }

    /** True when {@code fingerprint} is that of a secret proven earlier and still accepted by an enabled client. */
    public boolean proven(Entry entry, byte[] fingerprint) {
        ClientSnapshot client = entry.client;
        if (client == null || !client.enabled()) {
            return false;
        }
        Proof proof = proofs.getIfPresent(client.clientId());
        return proof != null && SecretHasher.same(proof.fingerprint(), fingerprint)
                && client.accepts(proof.hash(), clock.instant());
    }

    /** Remembers a secret a slow check accepted, with the hash it matched. */
    public void prove(String clientId, byte[] fingerprint, String hash) {
        proofs.put(clientId, new Proof(fingerprint, hash));
    }

    private Entry cached(String clientId) {
        Entry entry = known.get(clientId);
        return entry != null ? entry : unknown.getIfPresent(clientId);
    }

    private Uni<Entry> read(String clientId, Entry previous) {
        long startedIn = generations.get(stripe(clientId));
        long startedAt = clock.millis();
        return store.bound(Panache.withSession(() -> repository.findById(clientId)))
                .map(row -> install(clientId, previous, row == null ? null : ClientSnapshot.of(row), startedIn,
                        startedAt))
                .onFailure().recoverWithUni(failure -> {
                    if (previous != null) {
                        previous.refreshing.set(false);
                    }
                    if (!(failure instanceof StoreUnavailableException) || previous == null) {
                        return Uni.createFrom().failure(failure);
                    }
                    // PostgreSQL is away: serve what is held, and ask again only every few seconds
                    previous.servedStaleUntil = clock.millis() + OUTAGE_RETRY_MILLIS;
                    LOG.warnf("client %s served from its cached record: %s", clientId, failure.toString());
                    return Uni.createFrom().item(previous);
                });
    }

    private Entry install(String clientId, Entry previous, ClientSnapshot client, long startedIn, long startedAt) {
        Entry fresh = new Entry(client, clock.millis());
        // a change made while this read was under way may not be in it: do not cache what it read
        if (generations.get(stripe(clientId)) != startedIn) {
            return fresh;
        }
        if (client == null) {
            known.remove(clientId);
            Entry current = unknown.asMap().compute(clientId, (id, held) -> keep(held, previous, startedAt) ? held : fresh);
            return current;
        }
        unknown.invalidate(clientId);
        // concurrent first requests read concurrently: all of them share the entry installed first, so that they
        // share its slow check
        return known.compute(clientId, (id, held) -> keep(held, previous, startedAt) ? held : fresh);
    }

    private static int stripe(String clientId) {
        return Math.floorMod(clientId.hashCode(), STRIPES);
    }

    private static boolean keep(Entry held, Entry previous, long startedAt) {
        return held != null && held != previous && held.readAtMillis >= startedAt;
    }
}
