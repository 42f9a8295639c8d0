package io.outpost.auth.service;

import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Singleton;

import io.outpost.auth.config.AuthConfig;

/**
 * Counts failed client authentications per client id and per client address in fixed windows; once a count
 * reaches its maximum, further unverified attempts are refused until the window ends. Only failures count, so a
 * client that authenticates is never slowed. Per replica and in memory: an attacker spread over N replicas gets
 * N times the budget, which still bounds the slow-KDF work each replica does for failures.
 */
@Singleton
public class FailureThrottle {

    private record Window(long endNanos, AtomicInteger failures) {
    }

    private final Map<String, Window> clients = new ConcurrentHashMap<>();
    private final Map<String, Window> addresses = new ConcurrentHashMap<>();
    private final int maxPerClient;
    private final int maxPerAddress;
    private final long windowNanos;
    private final int maxTracked;

    public FailureThrottle(AuthConfig config) {
        this.maxPerClient = config.throttle().maxFailuresPerClient();
        this.maxPerAddress = config.throttle().maxFailuresPerAddress();
        this.windowNanos = config.throttle().window().toNanos();
        this.maxTracked = config.throttle().maxTracked();
    }

    /** Seconds until {@code address} may try again, or empty when it is not throttled. */
    public OptionalLong addressRetryAfter(String address) {
        return retryAfter(addresses, address, maxPerAddress);
    }

    /** Seconds until unverified attempts for {@code clientId} are taken again, or empty. */
    public OptionalLong clientRetryAfter(String clientId) {
        return retryAfter(clients, clientId, maxPerClient);
    }

    /** Records a failure of {@code clientId} (null when no client id could be read) from {@code address}. */
    public void failed(String clientId, String address) {
        if (clientId != null) {
            count(clients, clientId);
        }
        count(addresses, address);
    }

    private OptionalLong retryAfter(Map<String, Window> windows, String key, int max) {
        Window window = windows.get(key);
        long now = System.nanoTime();
        if (window == null || now - window.endNanos() >= 0 || window.failures().get() < max) {
            return OptionalLong.empty();
        }
        long left = window.endNanos() - now;
        return OptionalLong.of(Math.max(1, (left + 999_999_999L) / 1_000_000_000L));
    }

    private void count(Map<String, Window> windows, String key) {
        long now = System.nanoTime();
        if (windows.size() >= maxTracked) {
            windows.values().removeIf(w -> now - w.endNanos() >= 0);
            if (windows.size() >= maxTracked) {
                windows.clear(); // a flood of distinct keys: forget rather than grow without bound
            }
        }
        windows.compute(key, (k, w) -> w == null || now - w.endNanos() >= 0
                ? new Window(now + windowNanos, new AtomicInteger(1))
                : incremented(w));
    }

    private static Window incremented(Window window) {
        window.failures().incrementAndGet();
        return window;
    }
}
