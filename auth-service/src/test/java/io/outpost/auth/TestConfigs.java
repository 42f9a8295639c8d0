package io.outpost.auth;

import java.util.Map;

import io.outpost.auth.config.AuthConfig;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/** auth-service's configuration for unit tests: the defaults of {@link AuthConfig}, with some keys set. */
public final class TestConfigs {

    private TestConfigs() {
    }

    /** {@code settings} without the {@code outpost.auth.} prefix. */
    public static AuthConfig auth(Map<String, String> settings) {
        Map<String, String> prefixed = new java.util.HashMap<>();
        settings.forEach((key, value) -> prefixed.put("outpost.auth." + key, value));
        SmallRyeConfig config = new SmallRyeConfigBuilder().withMapping(AuthConfig.class)
                .withSources(new PropertiesConfigSource(prefixed, "test", 500)).build();
        return config.getConfigMapping(AuthConfig.class);
    }
}
