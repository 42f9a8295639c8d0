package io.outpost.auth.service;

import java.util.Base64;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import io.outpost.auth.config.AuthConfig;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * Authenticates a client for the token endpoint. The hot path compares a keyed fingerprint of the presented
 * secret with the one remembered after a successful slow check: no KDF, no database. Everything else — first
 * use, a changed secret, a wrong secret, an unknown client, a disabled one — runs exactly one slow KDF check on a
 * small dedicated pool (against a dummy hash when the client is unknown), so all refusals look and take alike.
 */
@Singleton
public class ClientAuthenticator {

    /** What became of an attempt. */
    public sealed interface Outcome {
    }

    public record Granted(ClientSnapshot client) implements Outcome {
    }

    public record Refused() implements Outcome {
    }

    public record Throttled(long retryAfterSeconds) implements Outcome {
    }

    private static final Outcome REFUSED = new Refused();

    private final SecretHasher hasher;
    private final ClientDirectory directory;
    private final FailureThrottle throttle;
    private final ThreadPoolExecutor slowChecks;

    public ClientAuthenticator(SecretHasher hasher, ClientDirectory directory, FailureThrottle throttle,
            AuthConfig config) {
        this.hasher = hasher;
        this.directory = directory;
        this.throttle = throttle;
        int threads = config.secrets().kdfThreads();
        AtomicInteger count = new AtomicInteger();
        this.slowChecks = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(config.secrets().kdfQueue()), task -> {
                    Thread thread = new Thread(task, "outpost-secret-check-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
    }

    /**
     * @param credentials null when the Authorization header was missing or unreadable
     * @param address     the client address failures are counted against
     */
    public Uni<Outcome> authenticate(ClientCredentials credentials, String address) {
        OptionalLong addressWait = throttle.addressRetryAfter(address);
        if (credentials == null) {
            if (addressWait.isPresent()) {
                return Uni.createFrom().item(new Throttled(addressWait.getAsLong()));
            }
            throttle.failed(null, address);
            return Uni.createFrom().item(REFUSED);
        }
        byte[] fingerprint = hasher.fingerprint(credentials.secret());
        return directory.lookup(credentials.clientId()).flatMap(entry -> {
            if (entry.proven(fingerprint)) {
                // a secret this process has already proven: never throttled, never slowed
                return Uni.createFrom().item(new Granted(entry.client()));
            }
            OptionalLong wait = longest(addressWait, throttle.clientRetryAfter(credentials.clientId()));
            if (wait.isPresent()) {
                return Uni.createFrom().item(new Throttled(wait.getAsLong()));
            }
            return slowCheck(entry, credentials, fingerprint, address);
        });
    }

    private Uni<Outcome> slowCheck(ClientDirectory.Entry entry, ClientCredentials credentials, byte[] fingerprint,
            String address) {
        ClientSnapshot client = entry.client();
        Context context = Vertx.currentContext();
        // a burst of requests with one secret (a cold start under load) costs one KDF run, not one per request
        String key = Base64.getEncoder().encodeToString(fingerprint);
        CompletableFuture<Boolean> mine = new CompletableFuture<>();
        CompletableFuture<Boolean> running = entry.checks().putIfAbsent(key, mine);
        if (running == null) {
            try {
                slowChecks.execute(() -> {
                    try {
                        mine.complete(hasher.verify(credentials.secret(), client == null ? null : client.secretHash()));
                    } catch (RuntimeException e) {
                        mine.completeExceptionally(e);
                    } finally {
                        entry.checks().remove(key, mine);
                    }
                });
            } catch (RejectedExecutionException overloaded) {
                entry.checks().remove(key, mine);
                mine.complete(null);
            }
        }
        CompletableFuture<Boolean> check = running != null ? running : mine;
        Uni<Boolean> result = Uni.createFrom().completionStage(check);
        if (context != null) {
            result = result.emitOn(task -> context.runOnContext(ignored -> task.run()));
        }
        return result.map(valid -> {
            if (valid == null) {
                return new Throttled(1);
            }
            if (valid && client.enabled()) {
                entry.prove(fingerprint);
                return new Granted(client);
            }
            throttle.failed(credentials.clientId(), address);
            return REFUSED;
        });
    }

    private static OptionalLong longest(OptionalLong a, OptionalLong b) {
        if (a.isEmpty()) {
            return b;
        }
        return b.isEmpty() || a.getAsLong() >= b.getAsLong() ? a : b;
    }

    @PreDestroy
    void stop() {
        slowChecks.shutdownNow();
    }
}
