package io.outpost.auth.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import io.outpost.model.Topics;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Every setting of auth-service, under {@code outpost.auth}. docs/auth.md lists them with examples. */
@ConfigMapping(prefix = "outpost.auth")
public interface AuthConfig {

    /** Lifetime of an issued access token; answered as {@code expires_in} (DESIGN §2). */
    @WithDefault("PT1H")
    Duration tokenLifetime();

    /**
     * The externally visible base URL of the platform: the ingress (or the local gateway) that clients reach, e.g.
     * {@code https://outpost.example.com}. The issuer and every URL of the discovery documents derive from it.
     */
    @WithDefault("http://localhost:8080")
    String publicBaseUrl();

    /**
     * The {@code iss} of every token and of the discovery documents: the public base URL unless set apart (only to
     * keep an earlier issuer while verifiers move; OpenID Connect Discovery wants the two equal).
     */
    @WithDefault("${outpost.auth.public-base-url}")
    String issuer();

    /** The {@code aud} of every token; verifiers (outpost.security.audience) expect the same value. */
    @WithDefault("outpost")
    String audience();

    /**
     * How long a client record read from PostgreSQL is trusted before it is read again; a busy client's record is
     * read again in the background and served meanwhile for up to another TTL. So a replica acts on a record at most
     * twice this old, and a client-wide revocation's cut-off lies that far ahead of its change (docs/auth.md,
     * "Revocation"): keep it short. Every replica also drops a client's record as soon as the revocation feed
     * brings a client-wide revocation of it.
     */
    @WithDefault("PT1S")
    Duration clientCacheTtl();

    Admin admin();

    Keys keys();

    Events events();

    Secrets secrets();

    Throttle throttle();

    Revocations revocations();

    /**
     * Clients created (or brought in line) at start-up, for local runs: {@code outpost.auth.bootstrap-clients.<id>.*}.
     * Idempotent: a restart changes nothing unless the configuration changed.
     */
    Map<String, BootstrapClient> bootstrapClients();

    /**
     * Where client administration ({@code /users/v1/admin/…}) is served: a listener of its own, never the public
     * port, so that no ingress route or gateway can expose it (docs/deploy.md, "The admin API").
     */
    interface Admin {

        /** Its port; 0 picks a free one (tests). */
        @WithDefault("8084")
        int port();

        /** The interface it binds; by default the main HTTP server's ({@code quarkus.http.host}). */
        Optional<String> host();
    }

    /** Signing keys. See docs/auth.md, "Keys and rotation". */
    interface Keys {

        /** The key that signs; when absent, the configured key with the greatest kid (name kids by date). */
        Optional<String> activeKid();

        /**
         * A folder of private keys, one per file, named {@code <kid>.pem} (PKCS#8) or {@code <kid>.jwk}/{@code .json}
         * (a private JWK): in prod, a mounted Kubernetes Secret.
         */
        Optional<Path> dir();

        /** Private keys given inline, {@code outpost.auth.keys.inline.<kid>=<PEM or JWK text>}. */
        Map<String, String> inline();

        /**
         * With no configured key, generate a development key at first start and keep it in {@link #devKeyDir()}.
         * Production configures its keys instead (every replica must sign with the same ones).
         */
        @WithDefault("true")
        boolean generateDevKey();

        /** Where the generated development key lives (relative to the working directory). */
        @WithDefault(".outpost-local/auth-keys")
        Path devKeyDir();

        /** Algorithm of a generated development key: ES256 or RS256. */
        @WithDefault("ES256")
        String devKeyAlgorithm();

        /** Sign through the native BoringSSL provider (Conscrypt) when it loads; the JDK's provider otherwise. */
        @WithDefault("true")
        boolean nativeProvider();

        /** How often {@link #dir()} is read again, so that keys are added and removed without a restart. */
        @WithDefault("PT30S")
        Duration reloadInterval();

        /**
         * A key added to the folder while running is published at once and signs only this long after (when it is
         * the greatest kid): verifiers hold it by then. At least twice the verifiers' {@code jwks-refresh}.
         */
        @WithDefault("PT10M")
        Duration activationDelay();

        /**
         * A key that stopped signing is unpublished this long after, when every token it signed has expired.
         * Default: {@code token-lifetime} plus 5 minutes (clock skew). Removing a key's file retires it at once.
         */
        Optional<Duration> retireAfter();
    }

    /** Kafka topics auth-service publishes to (through its outbox table). */
    interface Events {

        /** Revocations read by every verifier; compacted. Must equal the verifiers' outpost.security.revocation.topic. */
        @WithDefault(Topics.AUTH_TOKEN_REVOCATIONS)
        String revocationTopic();

        /** One JSON record per admin action and revocation. */
        @WithDefault(Topics.AUTH_AUDIT)
        String auditTopic();

        /** How often records left in the outbox (Kafka away, or another replica's) are looked for. */
        @WithDefault("PT1S")
        Duration outboxInterval();
    }

    /**
     * Bounds on single-token revocations (RFC 7009), each of which every verifier keeps in memory until the token
     * expires. Past either bound a revocation is folded into a client-wide cut-off instead: every token of the
     * client issued up to the revoked one is revoked, which costs every verifier one entry for the client.
     */
    interface Revocations {

        /** Single-token revocations of one client that may be live at once (their tokens not yet expired). */
        @WithDefault("20")
        int maxTokensPerClient();

        /** Single-token revocations of all clients that may be live at once: each verifier's memory for them. */
        @WithDefault("50000")
        int maxTokens();

        /** Revocations (RFC 7009) one client may make at once before they are rationed ({@code RevocationThrottle}). */
        @WithDefault("30")
        int burstPerClient();

        /** Revocations per second one client gets past its burst; the others are answered 429. */
        @WithDefault("1")
        int perClientPerSecond();
    }

    /** Client secrets at rest. */
    interface Secrets {

        /** PBKDF2-HMAC-SHA512 iterations for new hashes (OWASP 2023: 210,000). Stored per hash, so raising it is safe. */
        @WithDefault("210000")
        int pbkdf2Iterations();

        /** Threads that run the slow secret check (cold path and every failure); more would only queue on the cores. */
        @WithDefault("2")
        int kdfThreads();

        /** Slow checks waiting for a thread before further ones are answered 503 (bounds the cost of a flood). */
        @WithDefault("256")
        int kdfQueue();

        /**
         * How long a rotated secret keeps working unless the rotation says otherwise (docs/auth.md): short, so that
         * a rotation made because a secret leaked ends it soon even when the call forgets {@code grace_seconds}.
         */
        @WithDefault("PT5M")
        Duration rotationGrace();
    }

    /** Throttling of failed client authentication (DESIGN §2). */
    interface Throttle {

        /**
         * Failures of one client id within {@link #window()} before its unverified attempts are rationed to
         * {@link #lockedChecksPerSecond()} (never refused outright: the real secret must still get through).
         */
        @WithDefault("10")
        int maxFailuresPerClient();

        /** Slow checks per second one client id gets once over its failure budget; the rest are answered 429. */
        @WithDefault("2")
        int lockedChecksPerSecond();

        /**
         * Failures from one client address — the peer, or the address a trusted proxy reports; never the caller's
         * own x-svc-client-addr — within the window.
         */
        @WithDefault("30")
        int maxFailuresPerAddress();

        /** Length of the fixed window failures are counted in; {@code Retry-After} is the time left of it. */
        @WithDefault("PT1M")
        Duration window();

        /** Most client ids (and, separately, addresses) tracked at once; beyond it the least used are forgotten. */
        @WithDefault("100000")
        int maxTracked();
    }

    /** A client registered from configuration. */
    interface BootstrapClient {

        /** Its secret, in clear text (configuration of a local run); only its hash is stored. */
        String secret();

        /** Its permissions. */
        Optional<List<String>> permissions();

        /** The player it is bound to, if any ({@code player_uuid} claim). */
        Optional<UUID> playerUuid();

        /** The sandboxes it is bound to, if any ({@code sandbox_ids} claim; docs/auth.md, "Sandbox binding"). */
        Optional<List<String>> sandboxIds();

        @WithDefault("true")
        boolean enabled();
    }
}
