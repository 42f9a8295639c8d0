package io.outpost.support.security;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;

import com.github.benmanes.caffeine.cache.Expiry;

/** A Caffeine expiry that drops each entry at an instant its value names (read from the given clock). */
public final class ExpireAt<K, V> implements Expiry<K, V> {

    private final Clock clock;
    private final Function<V, Instant> deadline;

    public ExpireAt(Clock clock, Function<V, Instant> deadline) {
        this.clock = clock;
        this.deadline = deadline;
    }

    @Override
    public long expireAfterCreate(K key, V value, long currentTime) {
        Duration left = Duration.between(clock.instant(), deadline.apply(value));
        return left.isNegative() ? 0 : left.toNanos();
    }

    @Override
    public long expireAfterUpdate(K key, V value, long currentTime, long currentDuration) {
        return expireAfterCreate(key, value, currentTime);
    }

    @Override
    public long expireAfterRead(K key, V value, long currentTime, long currentDuration) {
        return currentDuration;
    }
}
