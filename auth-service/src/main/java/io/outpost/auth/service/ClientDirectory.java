package io.outpost.auth.service;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.outpost.auth.config.AuthConfig;
import io.outpost.auth.repository.ClientRepository;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;

/**
 * Client records held in memory so that a token grant needs no database round trip. A record is trusted for
 * {@code client-cache-ttl}; up to twice that it is still answered while one background read refreshes it, so a
 * busy client never waits for PostgreSQL. Changes made through this replica apply at once ({@link #invalidate});
 * changes made through another replica apply here within 2 × {@code client-cache-ttl}. Unknown ids are remembered
 * too (bounded), so that they cost what a known client costs.
 */
@Singleton
public class ClientDirectory {

    private static final Logger LOG = Logger.getLogger(ClientDirectory.class);
    private static final int MAX_UNKNOWN = 10_000;

    /** A cached record ({@code client} null: no such client) and the fingerprint of its proven secret. */
    public static final class Entry {
        private final ClientSnapshot client;
        private final long readAtNanos;
        private final AtomicBoolean refreshing = new AtomicBoolean();
        /** Slow checks under way, by fingerprint: concurrent requests with the same secret share one. */
        private final Map<String, CompletableFuture<Boolean>> checks = new ConcurrentHashMap<>();
        private volatile byte[] provenFingerprint;

        Entry(ClientSnapshot client, long readAtNanos) {
            this.client = client;
            this.readAtNanos = readAtNanos;
        }

        /** The client, or null when the id is unknown. */
        public ClientSnapshot client() {
            return client;
        }

        /** True when {@code fingerprint} is that of the secret already proven by a slow check, for an enabled client. */
        public boolean proven(byte[] fingerprint) {
            return client != null && client.enabled() && SecretHasher.same(provenFingerprint, fingerprint);
        }

        /** The slow checks under way for this client. */
        Map<String, CompletableFuture<Boolean>> checks() {
            return checks;
        }

        /** Remembers a secret the slow check accepted. */
        public void prove(byte[] fingerprint) {
            this.provenFingerprint = fingerprint;
        }
    }

    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicLong generation = new AtomicLong();
    private final ClientRepository repository;
    private final long ttlNanos;

    public ClientDirectory(ClientRepository repository, AuthConfig config) {
        this.repository = repository;
        this.ttlNanos = config.clientCacheTtl().toNanos();
    }

    /** The record of {@code clientId} (never null; its client is null for an unknown id). */
    public Uni<Entry> lookup(String clientId) {
        Entry entry = entries.get(clientId);
        if (entry != null) {
            long age = System.nanoTime() - entry.readAtNanos;
            if (age < ttlNanos) {
                return Uni.createFrom().item(entry);
            }
            if (age < 2 * ttlNanos) {
                if (entry.refreshing.compareAndSet(false, true)) {
                    read(clientId, entry).subscribe().with(ignored -> {
                    }, failure -> LOG.warnf("could not refresh client %s: %s", clientId, failure.toString()));
                }
                return Uni.createFrom().item(entry);
            }
        }
        return read(clientId, entry);
    }

    /** Forgets a client after a change, so that the next request reads it again. */
    public void invalidate(String clientId) {
        generation.incrementAndGet();
        entries.remove(clientId);
    }

    private Uni<Entry> read(String clientId, Entry previous) {
        long startedIn = generation.get();
        long startedAt = System.nanoTime();
        return Panache.withSession(() -> repository.findById(clientId)).map(row -> {
            Entry fresh = new Entry(row == null ? null : ClientSnapshot.of(row), System.nanoTime());
            if (previous != null && previous.client != null && fresh.client != null
                    && previous.client.secretHash().equals(fresh.client.secretHash())) {
                fresh.provenFingerprint = previous.provenFingerprint;
            }
            // a change made while this read was under way may not be in it: do not cache what it read
            if (generation.get() != startedIn || fresh.client == null && entries.size() >= MAX_UNKNOWN) {
                return fresh;
            }
            // concurrent first requests read concurrently: all of them share the entry installed first, so that
            // they share its slow check and its proof
            return entries.compute(clientId, (id, current) -> current != null && current != previous
                    && current.readAtNanos - startedAt >= 0 ? current : fresh);
        }).onFailure().invoke(() -> {
            if (previous != null) {
                previous.refreshing.set(false);
            }
        });
    }
}
