package io.outpost.support.security;

import java.time.Duration;

import io.outpost.model.Topics;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * How a service verifies the bearer tokens auth-service issues (DESIGN §3), under {@code outpost.security}.
 * Shared by every service that guards endpoints. The token checks themselves (issuer, audience, algorithms,
 * clock skew, required claims) are SmallRye JWT's {@code mp.jwt.*} settings, which follow {@link #issuer()} and
 * {@link #audience()} (service-support's {@code microprofile-config.properties}).
 */
@ConfigMapping(prefix = "outpost.security")
public interface SecurityConfig {

    /**
     * Where the public keys are: auth-service's JWK Set ({@code http(s)://…/users/v1/publickeys}) or a JWK Set
     * file ({@code file:/path}).
     */
    @WithDefault("http://localhost:8081/users/v1/publickeys")
    String jwksUrl();

    /** The {@code iss} every accepted token carries; must equal auth-service's {@code outpost.auth.issuer}. */
    @WithDefault("http://localhost:8080")
    String issuer();

    /** An {@code aud} every accepted token carries; must equal auth-service's {@code outpost.auth.audience}. */
    @WithDefault("outpost")
    String audience();

    /**
     * How often the key set is fetched again while in use. A key removed from auth-service's set stops verifying
     * within this time, cached tokens included.
     */
    @WithDefault("PT5M")
    Duration jwksRefresh();

    /** Shortest gap between two fetches caused by tokens with an unknown {@code kid} (rotation, or probing). */
    @WithDefault("PT10S")
    Duration jwksMinRefresh();

    /** Longest pause between fetches after failures (the pause doubles from one second up to this). */
    @WithDefault("PT5M")
    Duration jwksMaxBackoff();

    /**
     * Verified tokens remembered until they expire, so that a client polling in a loop pays for one signature
     * check (docs/benchmarks.md, "Bearer-token verification"). 0 verifies every request.
     */
    @WithDefault("20000")
    int verifiedTokenCacheSize();

    Revocation revocation();

    /** The revocation feed (docs/auth.md, "Revocation"). */
    interface Revocation {

        /** Read the feed and refuse revoked tokens with {@code auth_token_unknown}. */
        @WithDefault("true")
        boolean enabled();

        /** The compacted Kafka topic auth-service publishes revocations to. */
        @WithDefault(Topics.AUTH_TOKEN_REVOCATIONS)
        String topic();

        /**
         * How long start-up waits for the feed to read the topic to its end offsets (as they were at start). Until
         * it has, the service is not ready and answers 503 {@code revocations_unread} to every bearer request
         * rather than accept a token it cannot check; past this bound it starts all the same, still unready, and
         * says why (readiness check {@code Revocations}, the log) until Kafka answers and the topic is read.
         */
        @WithDefault("PT10S")
        Duration startupTimeout();
    }
}
