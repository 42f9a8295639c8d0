package io.outpost.support.security;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.PublicJsonWebKey;
import org.jose4j.lang.JoseException;

import io.quarkus.arc.DefaultBean;
import io.smallrye.mutiny.Uni;

/**
 * Public keys from a JWK Set URL (auth-service's {@code /users/v1/publickeys}) or file, kept in memory.
 * Fetched on first use, again in the background every {@code jwks-refresh}, and on demand when a token names
 * an unknown key id (rotation) — at most once per {@code jwks-min-refresh}, so a flood of made-up key ids
 * costs one fetch. Never blocks a thread: HTTP is asynchronous. A failed fetch keeps the keys it had.
 */
@DefaultBean
@ApplicationScoped
public class JwksKeySource implements KeySource {

    private static final Logger LOG = Logger.getLogger(JwksKeySource.class);

    private final SecurityConfig config;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    private volatile Map<String, Key> keys = Map.of();
    private volatile long fetchedAtNanos;
    private volatile long lastAttemptNanos;
    private volatile CompletableFuture<Void> inFlight;

    public JwksKeySource(SecurityConfig config) {
        this.config = config;
    }

    @Override
    public Uni<Optional<Key>> key(String kid) {
        Key known = keys.get(kid);
        long now = System.nanoTime();
        if (known != null) {
            if (now - fetchedAtNanos > config.jwksRefresh().toNanos()) {
                refresh(); // in the background; the key in hand is still good
            }
            return Uni.createFrom().item(Optional.of(known));
        }
        CompletableFuture<Void> pending = inFlight;
        if (pending != null && !pending.isDone()) {
            // a fetch is under way (e.g. the first one, with a burst of requests behind it): wait for it
            return Uni.createFrom().completionStage(pending).map(ignored -> Optional.ofNullable(keys.get(kid)));
        }
        boolean mayFetch = lastAttemptNanos == 0 || now - lastAttemptNanos >= config.jwksMinRefresh().toNanos();
        if (!mayFetch) {
            return Uni.createFrom().item(Optional.empty());
        }
        return Uni.createFrom().completionStage(refresh())
                .map(ignored -> Optional.ofNullable(keys.get(kid)));
    }

    private synchronized CompletableFuture<Void> refresh() {
        if (inFlight != null && !inFlight.isDone()) {
            return inFlight;
        }
        lastAttemptNanos = System.nanoTime();
        inFlight = fetch().thenAccept(json -> {
            keys = parse(json);
            fetchedAtNanos = System.nanoTime();
        }).exceptionally(failure -> {
            LOG.warnf("could not fetch the public keys from %s (keeping %d known): %s", config.jwksUrl(), keys.size(),
                    failure.getMessage());
            return null;
        });
        return inFlight;
    }

    private CompletableFuture<String> fetch() {
        URI uri = URI.create(config.jwksUrl());
        if ("file".equals(uri.getScheme())) {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return Files.readString(Path.of(uri), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5))
                .header("Accept", "application/json").GET().build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(response -> {
            if (response.statusCode() != 200) {
                throw new IllegalStateException("HTTP " + response.statusCode());
            }
            return response.body();
        });
    }

    static Map<String, Key> parse(String json) {
        try {
            Map<String, Key> parsed = new HashMap<>();
            for (JsonWebKey jwk : new JsonWebKeySet(json).getJsonWebKeys()) {
                if (jwk.getKeyId() != null && jwk instanceof PublicJsonWebKey publicJwk) {
                    parsed.put(jwk.getKeyId(), publicJwk.getPublicKey());
                }
            }
            return Map.copyOf(parsed);
        } catch (JoseException e) {
            throw new IllegalStateException("not a JWK Set: " + e.getMessage(), e);
        }
    }
}
