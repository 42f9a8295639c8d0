package io.outpost.support.security;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
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
 *
 * <ul>
 * <li>One fetch at a time: requests that need keys while a fetch is under way wait for that fetch.</li>
 * <li>Fetched on first use and again every {@code jwks-refresh} in the background (a removed key leaves within one
 * refresh); a token naming an unknown {@code kid} (rotation, or probing) may cause a fetch at most once per
 * {@code jwks-min-refresh}.</li>
 * <li>A failed fetch keeps the keys it had and backs off: the next attempt, whatever asks for it, waits 1 s, then
 * 2 s, 4 s … up to {@code jwks-max-backoff}. A failing auth-service sees at most one fetch per pause from each
 * replica, however many requests arrive.</li>
 * </ul>
 * Never blocks a thread, and an event loop least of all: the caller only notes that a fetch is due and hands it to
 * this source's own thread ({@code outpost-jwks}), which builds the request, sends it, parses the answer and
 * completes the requests that waited (they go on from there; Quarkus REST and the long-poll route return to their
 * own event loop). The JDK HTTP client does slow work on first use on the thread that sends (building it: its
 * classes, selector thread, TLS and security providers; the first send: the proxy look-up): 2.9 s on an event loop
 * of a loaded machine, when it was built and first used there. {@link #prepare()} builds it ahead of the first
 * fetch. Time comes from the injected {@link Clock}.
 */
@DefaultBean
@ApplicationScoped
public class JwksKeySource implements KeySource {

    private static final Logger LOG = Logger.getLogger(JwksKeySource.class);
    private static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);

    private final SecurityConfig config;
    private final Clock clock;
    /** The one thread every fetch runs on, and the HTTP client's executor (one fetch at a time); gone when idle. */
    private final ThreadPoolExecutor worker = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), runnable -> {
                Thread thread = new Thread(runnable, "outpost-jwks");
                thread.setDaemon(true);
                return thread;
            });
    private HttpClient http;
    private volatile Map<String, PublicKey> keys = Map.of();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile Instant fetchedAt;
    /** No fetch starts before this instant (min-refresh after a success, back-off after failures). */
    private Instant nextAttempt = Instant.MIN;
    private int failures;
    private CompletableFuture<Void> inFlight;

    public JwksKeySource(SecurityConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
        worker.allowCoreThreadTimeOut(true);
    }

    /** At start-up: the HTTP client is built, so that the first fetch is quick (it would not block anyway). */
    @Override
    public void prepare() {
        URI uri;
        try {
            uri = URI.create(config.jwksUrl());
        } catch (IllegalArgumentException e) {
            return; // not a URL: each fetch fails and says so, as before
        }
        if (!"file".equals(uri.getScheme())) {
            client();
        }
    }

    @PreDestroy
    void stop() {
        worker.shutdown();
    }

    @Override
    public Uni<Optional<PublicKey>> key(String kid) {
        refreshIfDue();
        PublicKey known = keys.get(kid);
        if (known != null) {
            return Uni.createFrom().item(Optional.of(known));
        }
        CompletableFuture<Void> fetch = fetchNow();
        if (fetch == null) {
            return Uni.createFrom().item(Optional.empty()); // within min-refresh or back-off: no new fetch
        }
        return Uni.createFrom().completionStage(fetch).map(ignored -> Optional.ofNullable(keys.get(kid)));
    }

    @Override
    public boolean published(String kid) {
        refreshIfDue();
        return keys.containsKey(kid);
    }

    @Override
    public boolean publishes(String kid, PublicKey key) {
        refreshIfDue();
        PublicKey known = keys.get(kid);
        return known != null && (known == key || known.equals(key));
    }

    @Override
    public void onChange(Runnable listener) {
        listeners.add(listener);
    }

    /** Starts a background fetch when the keys are older than {@code jwks-refresh} and no pause forbids it. */
    @Override
    public void refreshIfDue() {
        Instant fetched = fetchedAt;
        if (fetched == null || !clock.instant().isBefore(fetched.plus(config.jwksRefresh()))) {
            fetchNow();
        }
    }

    /** The fetch under way, a new one, or null when the pause after the last attempt is not over. */
    private synchronized CompletableFuture<Void> fetchNow() {
        if (inFlight != null && !inFlight.isDone()) {
            return inFlight;
        }
        Instant now = clock.instant();
        if (now.isBefore(nextAttempt)) {
            return null;
        }
        nextAttempt = Instant.MAX; // until this attempt ends
        CompletableFuture<Void> done = new CompletableFuture<>();
        inFlight = done;
        try {
            // everything of the fetch happens on the worker, the parsing and the bookkeeping after it included:
            // callbacks are attached there, before anything can complete on the caller's thread
            worker.execute(() -> fetch().thenApply(JwksKeySource::parse).whenComplete((parsed, failure) -> {
                finished(parsed, failure);
                done.complete(null);
            }));
        } catch (RejectedExecutionException e) { // shutting down
            finished(null, e);
            done.complete(null);
        }
        return done;
    }

    private synchronized void finished(Map<String, PublicKey> parsed, Throwable failure) {
        Instant now = clock.instant();
        if (failure == null) {
            Map<String, PublicKey> before = keys;
            keys = parsed;
            fetchedAt = now;
            failures = 0;
            nextAttempt = now.plus(config.jwksMinRefresh());
            if (!parsed.entrySet().containsAll(before.entrySet())) { // a key left, or its id names another now
                listeners.forEach(Runnable::run);
            }
            return;
        }
        failures++;
        Duration pause = backoff(failures, config.jwksMaxBackoff());
        nextAttempt = now.plus(pause);
        Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
        LOG.warnf("could not fetch the public keys from %s (attempt %d, keeping %d known, next attempt in %d s): %s",
                config.jwksUrl(), failures, keys.size(), pause.toSeconds(), cause.toString());
    }

    /** 1 s, 2 s, 4 s … doubling with each consecutive failure, never more than {@code max}. */
    static Duration backoff(int failures, Duration max) {
        if (failures >= 31) {
            return max;
        }
        Duration pause = FIRST_BACKOFF.multipliedBy(1L << (failures - 1));
        return pause.compareTo(max) > 0 ? max : pause;
    }

    /** On the worker: the key set's text. */
    private CompletableFuture<String> fetch() {
        try {
            URI uri = URI.create(config.jwksUrl());
            if ("file".equals(uri.getScheme())) {
                return CompletableFuture.completedFuture(Files.readString(Path.of(uri), StandardCharsets.UTF_8));
            }
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5))
                    .header("Accept", "application/json").GET().build();
            return client().sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(response -> {
                if (response.statusCode() != 200) {
                    throw new IllegalStateException("HTTP " + response.statusCode());
                }
                return response.body();
            });
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Built once, by {@link #prepare()} at start-up or else by the first fetch, on the worker. */
    private synchronized HttpClient client() {
        if (http == null) {
            http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).executor(worker).build();
        }
        return http;
    }

    static Map<String, PublicKey> parse(String json) {
        try {
            Map<String, PublicKey> parsed = new HashMap<>();
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
