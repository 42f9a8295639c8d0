package io.outpost.auth.service;

import java.time.Clock;
import java.util.Base64;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

import jakarta.inject.Singleton;

import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * Authenticates a client (token, revocation and introspection endpoints). The hot path compares a keyed fingerprint
 * of the presented secret with the one remembered after a successful slow check: no KDF, no database. Everything
 * else — first use, a changed secret, a wrong secret, an unknown client, a disabled one — runs one slow KDF check
 * (one too for a client within a rotation's grace period: its two hashes share their salt, {@link SecretHasher})
 * on a small dedicated pool, against a dummy hash when the client is unknown, so that refusals look and take alike.
 */
@Singleton
public class ClientAuthenticator {

    /** What became of an attempt. */
    public sealed interface Outcome {
    }

    public record Granted(ClientSnapshot client) implements Outcome {
    }

    /**
     * @param reason    for metrics: {@code malformed_credentials}, {@code unknown_client}, {@code invalid_secret},
     *                  {@code disabled}
     * @param clientId  the registered client it concerns, or null
     */
    public record Refused(String reason, String clientId) implements Outcome {
    }

    public record Throttled(long retryAfterSeconds, String clientId) implements Outcome {
    }

    /** The slow-check queue is full: the server is overloaded, not the client wrong. */
    public record Busy() implements Outcome {
    }

    private final SecretHasher hasher;
    private final ClientDirectory directory;
    private final FailureThrottle throttle;
    private final SlowChecks slowChecks;
    private final ClientValidation validation;
    private final Clock clock;

    public ClientAuthenticator(SecretHasher hasher, ClientDirectory directory, FailureThrottle throttle,
            SlowChecks slowChecks, ClientValidation validation, Clock clock) {
        this.hasher = hasher;
        this.directory = directory;
        this.throttle = throttle;
        this.slowChecks = slowChecks;
        this.validation = validation;
        this.clock = clock;
    }

    /**
     * @param presented   null when the Authorization header was missing or unreadable
     * @param address     the client address failures are counted against
     * @return the outcome; a failure with {@code StoreUnavailableException} when the client's record is needed and
     *         PostgreSQL cannot give it
     */
    public Uni<Outcome> authenticate(ClientCredentials presented, String address) {
        OptionalLong addressWait = throttle.addressRetryAfter(address);
        // a secret with U+0000 (or half a surrogate pair) is refused before the KDF: PBKDF2's HMAC pads its key with
        // zero bytes, so "s" and "s\0" would derive the same hash (SecretHasher)
        ClientCredentials credentials = presented == null || !SecretHasher.acceptable(presented.secret()) ? null : presented;
        if (credentials == null) {
            if (addressWait.isPresent()) {
                return Uni.createFrom().item(new Throttled(addressWait.getAsLong(), null));
            }
            throttle.failed(null, address);
            return Uni.createFrom().item(new Refused("malformed_credentials", null));
        }
        byte[] fingerprint = hasher.fingerprint(credentials.secret());
        // an id the registry cannot hold (U+0000, ':' …) is unknown without asking PostgreSQL
        Uni<ClientDirectory.Entry> record = validation.isClientId(credentials.clientId())
                ? directory.lookup(credentials.clientId())
                : Uni.createFrom().item(new ClientDirectory.Entry(null, clock.millis()));
        return record.flatMap(entry -> {
            if (directory.proven(entry, fingerprint)) {
                // a secret this process has already proven: never throttled, never slowed
                return Uni.createFrom().item(new Granted(entry.client()));
            }
            String clientId = entry.client() == null ? null : entry.client().clientId();
            if (addressWait.isPresent()) {
                return Uni.createFrom().item(new Throttled(addressWait.getAsLong(), clientId));
            }
            OptionalLong clientWait = throttle.clientRetryAfter(credentials.clientId());
            if (clientWait.isPresent()) {
                return Uni.createFrom().item(new Throttled(clientWait.getAsLong(), clientId));
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
        CompletableFuture<String> mine = new CompletableFuture<>();
        CompletableFuture<String> running = entry.checks().putIfAbsent(key, mine);
        if (running == null) {
            boolean queued = slowChecks.submit(() -> {
                try {
                    mine.complete(matchingHash(client, credentials.secret()));
                } catch (RuntimeException e) {
                    mine.completeExceptionally(e);
                } finally {
                    entry.checks().remove(key, mine);
                }
            });
            if (!queued) {
                entry.checks().remove(key, mine);
                return Uni.createFrom().item(new Busy());
            }
        }
        CompletableFuture<String> check = running != null ? running : mine;
        Uni<String> result = Uni.createFrom().completionStage(check);
        if (context != null) {
            result = result.emitOn(task -> context.runOnContext(ignored -> task.run()));
        }
        return result.map(hash -> {
            if (hash != null && client.enabled()) {
                directory.prove(client.clientId(), fingerprint, hash);
                return new Granted(client);
            }
            throttle.failed(credentials.clientId(), address);
            String reason = client == null ? "unknown_client" : hash == null ? "invalid_secret" : "disabled";
            return new Refused(reason, client == null ? null : client.clientId());
        });
    }

    /** The hash the secret matches (the current one, else the previous one within its grace), or null. */
    private String matchingHash(ClientSnapshot client, String secret) {
        if (client == null) {
            hasher.verify(secret, null); // the cost of a wrong secret, for an unknown client
            return null;
        }
        return hasher.matching(secret, client.secretHash(), client.previousSecretHash(clock.instant()));
    }
}
