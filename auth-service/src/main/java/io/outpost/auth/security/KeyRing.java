package io.outpost.auth.security;

import java.security.Provider;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;
import org.jose4j.jwk.JsonWebKey;

import io.outpost.auth.config.AuthConfig;
import io.quarkus.runtime.Startup;

/**
 * The signing keys of this instance: which are published and which one signs, following a {@link KeySchedule}
 * (rotation with overlap, without restarts). The key folder is read again every {@code keys.reload-interval}: a key
 * that cannot be read then is reported and ignored, while at start-up any unusable key stops the start.
 */
@Startup
@Singleton
public class KeyRing {

    private static final Logger LOG = Logger.getLogger(KeyRing.class);

    /** What is published and who signs, until {@code nextChange}. */
    private record State(KeySchedule.View view, String jwks, Map<String, String> jwkByKid) {
    }

    private final AuthConfig.Keys config;
    private final Clock clock;
    private final Optional<Provider> provider;
    private final KeySchedule schedule;
    private final ScheduledExecutorService reloader;
    private volatile State state;

    public KeyRing(AuthConfig config, Clock clock) {
        this.config = config.keys();
        this.clock = clock;
        this.provider = this.config.nativeProvider() ? NativeCrypto.load() : Optional.empty();
        List<SigningKey> loaded = new ArrayList<>();
        KeyLoader.sources(this.config).forEach((name, text) -> loaded.add(KeyLoader.build(name, text, provider)));
        if (loaded.isEmpty()) {
            if (!this.config.generateDevKey()) {
                throw new IllegalStateException("no signing key configured: set outpost.auth.keys.dir or "
                        + "outpost.auth.keys.inline.<kid> (docs/auth.md)");
            }
            DevKeys.loadOrGenerate(this.config.devKeyDir(), this.config.devKeyAlgorithm())
                    .forEach((kid, json) -> loaded.add(KeyLoader.build(kid, json, provider)));
        }
        if (loaded.stream().map(SigningKey::kid).distinct().count() < loaded.size()) {
            throw new IllegalStateException("two signing keys have the same kid: "
                    + loaded.stream().map(SigningKey::kid).sorted().toList());
        }
        Duration retireAfter = this.config.retireAfter().orElse(config.tokenLifetime().plus(Duration.ofMinutes(5)));
        this.schedule = new KeySchedule(loaded, this.config.activationDelay(), retireAfter, this.config.activeKid());
        this.state = evaluate(clock.instant());
        LOG.infof("signing keys %s published; %s (%s) signs, through %s", state.view().published().keySet(),
                active().kid(), active().algorithm(), provider.map(Provider::getName).orElse("the JDK's provider"));
        this.reloader = this.config.dir().isEmpty() ? null : Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "outpost-key-reload");
            thread.setDaemon(true);
            return thread;
        });
        if (reloader != null) {
            long every = this.config.reloadInterval().toMillis();
            reloader.scheduleWithFixedDelay(this::reload, every, every, TimeUnit.MILLISECONDS);
        }
    }

    /** The key that signs new tokens now. */
    public SigningKey active() {
        return current().view().active();
    }

    /** The provider that signs (Conscrypt), or empty for the JDK's default. */
    Optional<Provider> signatureProvider() {
        return provider;
    }

    /** The public key published under {@code kid} now, if any. */
    public Optional<PublicKey> publicKey(String kid) {
        SigningKey key = current().view().published().get(kid);
        return key == null ? Optional.empty() : Optional.of(key.publicKey());
    }

    /** The JWK Set document (public parts only). */
    public String jwks() {
        return current().jwks();
    }

    /** One published JWK as JSON, if {@code kid} is known. */
    public Optional<String> jwk(String kid) {
        return Optional.ofNullable(current().jwkByKid().get(kid));
    }

    /** Signing algorithms of the published keys, for the discovery document. */
    public List<String> algorithms() {
        return current().view().published().values().stream().map(SigningKey::algorithm).distinct().sorted().toList();
    }

    /** Reads the key folder and inline keys again (also run every {@code keys.reload-interval}). */
    public synchronized void reload() {
        List<SigningKey> present = new ArrayList<>();
        try {
            KeyLoader.sources(config).forEach((name, text) -> {
                try {
                    present.add(KeyLoader.build(name, text, provider));
                } catch (IllegalStateException e) {
                    LOG.errorf("key %s ignored: %s", name, e.getMessage());
                }
            });
        } catch (RuntimeException e) {
            LOG.errorf("signing keys not reloaded: %s", e.getMessage());
            return;
        }
        if (present.isEmpty()) {
            LOG.error("the key folder holds no usable key: the current keys are kept");
            return;
        }
        Instant now = clock.instant();
        schedule.update(present, now);
        State before = state;
        state = evaluate(now);
        report(before, state);
    }

    private State current() {
        State now = state;
        if (clock.instant().isBefore(now.view().nextChange())) {
            return now;
        }
        synchronized (this) {
            Instant at = clock.instant();
            if (!at.isBefore(state.view().nextChange())) {
                State before = state;
                state = evaluate(at);
                report(before, state);
            }
            return state;
        }
    }

    private State evaluate(Instant now) {
        KeySchedule.View view = schedule.at(now);
        Map<String, String> jwkByKid = view.published().values().stream().collect(Collectors.toUnmodifiableMap(
                SigningKey::kid, key -> key.publicJwk().toJson(JsonWebKey.OutputControlLevel.PUBLIC_ONLY)));
        String jwks = view.published().keySet().stream().sorted().map(jwkByKid::get)
                .collect(Collectors.joining(",", "{\"keys\":[", "]}"));
        return new State(view, jwks, jwkByKid);
    }

    private static void report(State before, State after) {
        if (!before.view().published().keySet().equals(after.view().published().keySet())) {
            LOG.infof("signing keys published: %s", after.view().published().keySet());
        }
        if (!before.view().active().kid().equals(after.view().active().kid())) {
            LOG.infof("tokens are now signed by %s (%s)", after.view().active().kid(), after.view().active().algorithm());
        }
    }

    @PreDestroy
    void stop() {
        if (reloader != null) {
            reloader.shutdownNow();
        }
    }
}
