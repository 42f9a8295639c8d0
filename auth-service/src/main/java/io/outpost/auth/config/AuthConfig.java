package io.outpost.auth.config;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Every setting of auth-service, under {@code outpost.auth}. */
@ConfigMapping(prefix = "outpost.auth")
public interface AuthConfig {

    /** Lifetime of an issued access token; answered as {@code expires_in} (DESIGN §2). */
    @WithDefault("PT1H")
    Duration tokenLifetime();
}
