package io.outpost.support.security.revocation;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import jakarta.inject.Singleton;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.support.security.ExpireAt;
import io.outpost.support.security.VerifiedToken;

/**
 * The revocations this process knows, in memory: revoked token ids, and per client the time before which its
 * tokens are revoked. Each entry is kept exactly while a token it covers can still be valid (until its
 * {@code expires_at}, plus a margin), and never evicted before: a revocation forgotten early would let its token
 * verify again. Memory is bounded by what auth-service lets pile up within one token lifetime — a bounded number of
 * single-token revocations (per client and in all), past which it revokes by client instead — docs/auth.md,
 * "Revocation".
 *
 * <p>Whoever must act on a revocation as it arrives (auth-service drops the client's cached record, notification-
 * service ends the held polls of revoked tokens) registers with {@link #onApplied}.
 */
@Singleton
public class RevocationList {

    /** Kept past {@code expires_at}, so that a token still accepted within the verifiers' clock skew is covered. */
    public static final long MARGIN_SECONDS = Duration.ofMinutes(5).toSeconds();

    private final Clock clock;
    private final Cache<String, Long> tokens;
    private final Cache<String, long[]> clients;
    private final List<Consumer<Revocation>> listeners = new CopyOnWriteArrayList<>();

    public RevocationList(Clock clock, MeterRegistry registry) {
        this.clock = clock;
        this.tokens = cache(Long::longValue);
        this.clients = cache(cut -> cut[1]);
        Gauge.builder("outpost.auth.revocations.known", tokens, Cache::estimatedSize).tag("kind", Revocation.TOKEN)
                .description("Revoked tokens this process knows (until they expire)").register(registry);
        Gauge.builder("outpost.auth.revocations.known", clients, Cache::estimatedSize).tag("kind", Revocation.CLIENT)
                .description("Clients whose earlier tokens are revoked, known to this process").register(registry);
    }

    /** True when the token was revoked by id, or issued before its client's revocation time. */
    public boolean revoked(VerifiedToken token) {
        long now = clock.instant().getEpochSecond();
        if (token.jti() != null) {
            Long expiresAt = tokens.getIfPresent(token.jti());
            if (expiresAt != null && now <= expiresAt + MARGIN_SECONDS) {
                return true;
            }
        }
        long[] cut = clients.getIfPresent(token.clientId());
        return cut != null && now <= cut[1] + MARGIN_SECONDS && token.issuedAt().getEpochSecond() < cut[0];
    }

    /**
     * Applies one record of the feed; a client's later cut-off replaces an earlier one, never the reverse. Then
     * tells every listener, on the caller's thread (the feed's): a listener hands real work to a thread of its own.
     */
    public void apply(Revocation revocation) {
        if (Revocation.TOKEN.equals(revocation.type())) {
            tokens.put(revocation.jti(), revocation.expiresAt());
        } else {
            clients.asMap().merge(revocation.clientId(),
                    new long[] { revocation.issuedBefore(), revocation.expiresAt() },
                    (old, fresh) -> fresh[0] >= old[0] ? fresh : old);
        }
        for (Consumer<Revocation> listener : listeners) {
            listener.accept(revocation);
        }
    }

    /** {@code listener} is told of every revocation applied from now on (after it applies). */
    public void onApplied(Consumer<Revocation> listener) {
        listeners.add(listener);
    }

    /** A tombstone of the compacted topic: the record under {@code key} is gone. */
    public void forget(String key) {
        if (key.startsWith("token:")) {
            tokens.invalidate(key.substring("token:".length()));
        } else if (key.startsWith("client:")) {
            clients.invalidate(key.substring("client:".length()));
        }
    }

    private <V> Cache<String, V> cache(java.util.function.ToLongFunction<V> expiresAt) {
        return Caffeine.newBuilder().expireAfter(new ExpireAt<String, V>(clock,
                value -> Instant.ofEpochSecond(expiresAt.applyAsLong(value) + MARGIN_SECONDS))).build();
    }
}
