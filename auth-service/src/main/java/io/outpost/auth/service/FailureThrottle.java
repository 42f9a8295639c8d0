package io.outpost.auth.service;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import io.outpost.auth.config.AuthConfig;

/**
 * Counts failed client authentications per client address and per client id in fixed windows, in bounded caches
 * (Caffeine: a flood of new ids or addresses evicts the least used entries, not the counters under attack, and
 * never clears them all).
 *
 * <ul>
 * <li>An address over its budget is refused (429) until its window ends.</li>
 * <li>A client id over its budget is never refused outright — that would lock out the real client on every
 * replica that has not yet proven its secret. Its unverified attempts are rationed instead, to
 * {@code locked-checks-per-second} slow checks; the others are answered 429 with {@code Retry-After: 1}.</li>
 * </ul>
 * Only failures count, so a client that authenticates is never slowed. Per replica and in memory: N replicas
 * allow N times the budget, which still bounds the slow-KDF work each does for failures.
 */
@Singleton
public class FailureThrottle {

    private record Window(long endNanos, AtomicInteger failures) {
    }

    private final Cache<String, Window> clients;
    private final Cache<String, Window> addresses;
    private final Cache<String, AtomicLong> rations;
    private final int maxPerClient;
    private final int maxPerAddress;
    private final long windowNanos;
    private final long rationNanos;
    private final LongSupplier nanoTime;

    @Inject
    public FailureThrottle(AuthConfig config) {
        this(config, System::nanoTime);
    }

    /** {@code nanoTime}: the clock of the windows, the rations and the caches' expiry (tests stop it). */
    FailureThrottle(AuthConfig config, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        AuthConfig.Throttle throttle = config.throttle();
        this.maxPerClient = throttle.maxFailuresPerClient();
        this.maxPerAddress = throttle.maxFailuresPerAddress();
        this.windowNanos = throttle.window().toNanos();
        this.rationNanos = Duration.ofSeconds(1).toNanos() / Math.max(1, throttle.lockedChecksPerSecond());
        this.clients = cache(throttle.maxTracked(), throttle.window(), nanoTime);
        this.addresses = cache(throttle.maxTracked(), throttle.window(), nanoTime);
        this.rations = cache(throttle.maxTracked(), throttle.window(), nanoTime);
    }

    /** Seconds until {@code address} may try again, or empty when it is not throttled. */
    public OptionalLong addressRetryAfter(String address) {
        Window window = addresses.getIfPresent(address);
        long now = nanoTime.getAsLong();
        if (window == null || now - window.endNanos() >= 0 || window.failures().get() < maxPerAddress) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Math.max(1, (window.endNanos() - now + 999_999_999L) / 1_000_000_000L));
    }

    /**
     * Empty when an unverified attempt for {@code clientId} may run its slow check now; else the seconds to wait.
     * Under its failure budget every attempt may; over it, one per ration.
     */
    public OptionalLong clientRetryAfter(String clientId) {
        Window window = clients.getIfPresent(clientId);
        long now = nanoTime.getAsLong();
        if (window == null || now - window.endNanos() >= 0 || window.failures().get() < maxPerClient) {
            return OptionalLong.empty();
        }
        AtomicLong next = rations.get(clientId, id -> new AtomicLong(now));
        long allowed = next.get();
        if (now - allowed >= 0 && next.compareAndSet(allowed, now + rationNanos)) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(1);
    }

    /** Records a failure of {@code clientId} (null when no client id could be read) from {@code address}. */
    public void failed(String clientId, String address) {
        if (clientId != null) {
            count(clients, clientId);
        }
        count(addresses, address);
    }

    private void count(Cache<String, Window> windows, String key) {
        long now = nanoTime.getAsLong();
        windows.asMap().compute(key, (k, w) -> w == null || now - w.endNanos() >= 0
                ? new Window(now + windowNanos, new AtomicInteger(1))
                : incremented(w));
    }

    private static Window incremented(Window window) {
        window.failures().incrementAndGet();
        return window;
    }

    private static <V> Cache<String, V> cache(int maxTracked, Duration window, LongSupplier nanoTime) {
        // maintenance runs on the caller's thread: eviction is immediate and predictable
        return Caffeine.newBuilder().maximumSize(maxTracked).expireAfterWrite(window).ticker(nanoTime::getAsLong)
                .executor(Runnable::run).build();
    }
}
