package io.outpost.support.security;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * How a service verifies the bearer tokens auth-service issues (DESIGN §3), under {@code outpost.security}.
 * Shared by every service that guards endpoints.
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

    /** Tolerated clock difference when checking {@code exp}, {@code iat} and {@code nbf}. */
    @WithDefault("PT30S")
    Duration clockSkew();

    /** How often the key set is fetched again in the background while in use. */
    @WithDefault("PT5M")
    Duration jwksRefresh();

    /** Shortest gap between two fetches caused by tokens with an unknown {@code kid} (rotation, or probing). */
    @WithDefault("PT10S")
    Duration jwksMinRefresh();

    /** Verified tokens remembered until they expire, so a client that polls in a loop is verified once. */
    @WithDefault("20000")
    int verifiedTokenCacheSize();
}
