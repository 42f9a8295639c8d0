package io.outpost.auth.service;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.inject.Singleton;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import io.outpost.auth.config.AuthConfig;

/**
 * Rations each client's RFC 7009 revocations ({@code revocations.burst-per-client}, then
 * {@code revocations.per-client-per-second}): every one takes the client's row lock, writes the outbox and reaches
 * every verifier, and past the client's bound one moves its cut-off, which every auth replica answers by reading
 * the client again and every notification replica by sweeping its held polls. A mint-then-revoke loop is answered
 * 429 instead. A generic cell rate (GCRA): one timestamp per client, in a bounded cache (least used forgotten
 * first, as {@link FailureThrottle}'s). Per replica, in memory: N replicas allow N times the rate.
 */
@Singleton
public class RevocationThrottle {

    private final Cache<String, AtomicLong> clients;
    private final long intervalNanos;
    private final long toleranceNanos;

    public RevocationThrottle(AuthConfig config) {
        AuthConfig.Revocations revocations = config.revocations();
        this.intervalNanos = Duration.ofSeconds(1).toNanos() / Math.max(1, revocations.perClientPerSecond());
        this.toleranceNanos = (Math.max(1, revocations.burstPerClient()) - 1) * intervalNanos;
        this.clients = Caffeine.newBuilder().maximumSize(config.throttle().maxTracked())
                .expireAfterAccess(toleranceNanos + intervalNanos, TimeUnit.NANOSECONDS).build();
    }

    /** Empty when {@code clientId} may revoke now (and it is counted); else the seconds until it may. */
    public OptionalLong acquire(String clientId) {
        AtomicLong due = clients.get(clientId, id -> new AtomicLong(Long.MIN_VALUE));
        while (true) {
            long now = System.nanoTime();
            long held = due.get();
            long from = held == Long.MIN_VALUE || held - now < 0 ? now : held;
            if (from - now > toleranceNanos) {
                long wait = from - now - toleranceNanos;
                return OptionalLong.of(Math.max(1, (wait + Duration.ofSeconds(1).toNanos() - 1)
                        / Duration.ofSeconds(1).toNanos()));
            }
            if (due.compareAndSet(held, from + intervalNanos)) {
                return OptionalLong.empty();
            }
        }
    }
}
