package io.outpost.auth.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Every setting of auth-service, under {@code outpost.auth}. docs/auth.md lists them with examples. */
@ConfigMapping(prefix = "outpost.auth")
public interface AuthConfig {

    /** Lifetime of an issued access token; answered as {@code expires_in} (DESIGN §2). */
    @WithDefault("PT1H")
    Duration tokenLifetime();

    /** The {@code iss} of every token and of the discovery document: the public address of the platform. */
    @WithDefault("http://localhost:8080")
    String issuer();

    /** The {@code aud} of every token; verifiers (outpost.security.audience) expect the same value. */
    @WithDefault("outpost")
    String audience();

    /**
     * Base URL of the endpoints named in the discovery document ({@code jwks_uri}, {@code token_endpoint}).
     * When absent they are derived from the request, so discovery works behind the gateway and directly.
     */
    Optional<String> publicBaseUrl();

    /** How long a client record read from PostgreSQL is trusted before it is read again (other replicas' changes). */
    @WithDefault("PT5S")
    Duration clientCacheTtl();

    Keys keys();

    Secrets secrets();

    Throttle throttle();

    /**
     * Clients created (or brought in line) at start-up, for local runs: {@code outpost.auth.bootstrap-clients.<id>.*}.
     * Idempotent: a restart changes nothing unless the configuration changed.
     */
    Map<String, BootstrapClient> bootstrapClients();

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
    }

    /** Client secrets at rest. */
    interface Secrets {

        /** PBKDF2-HMAC-SHA512 iterations for new hashes (OWASP 2023: 210,000). Stored per hash, so raising it is safe. */
        @WithDefault("210000")
        int pbkdf2Iterations();

        /** Threads that run the slow secret check (cold path and every failure); more would only queue on the cores. */
        @WithDefault("2")
        int kdfThreads();

        /** Slow checks waiting for a thread before further ones are answered 429 (bounds the cost of a flood). */
        @WithDefault("256")
        int kdfQueue();
    }

    /** Throttling of failed client authentication (DESIGN §2). */
    interface Throttle {

        /** Failures of one client id within {@link #window()} before further unverified attempts are refused 429. */
        @WithDefault("10")
        int maxFailuresPerClient();

        /** Failures from one client address ({@code x-svc-client-addr}, else the peer) within the window. */
        @WithDefault("30")
        int maxFailuresPerAddress();

        /** Length of the fixed window failures are counted in; {@code Retry-After} is the time left of it. */
        @WithDefault("PT1M")
        Duration window();

        /** Most client ids and addresses tracked at once; beyond it expired entries are purged, then the oldest. */
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

        @WithDefault("true")
        boolean enabled();
    }
}
