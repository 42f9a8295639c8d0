package io.outpost.testsupport;

import java.util.HashMap;
import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Points a {@code @QuarkusTest} at the real PostgreSQL and Kafka of {@link BackingServices#shared()}, and makes
 * it trust the keys of {@link TestTokens}: started
 * once per test JVM and shared by every test class (and every restart of the application under test).
 */
public class OutpostTestResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        Map<String, String> config = new HashMap<>(BackingServices.shared().quarkusConfig());
        // services under test trust the throw-away keys of TestTokens, pick up a newly published one at once and
        // notice a removed one within seconds
        config.put("outpost.security.jwks-url", TestTokens.shared().jwksUrl());
        config.put("outpost.security.jwks-min-refresh", "PT0S");
        config.put("outpost.security.jwks-refresh", "PT2S");
        config.putAll(kafkaUser());
        return config;
    }

    /**
     * How the service reaches Kafka: by default on the broker's plaintext listener, where anything goes. A module
     * whose tests connect as the service's prod {@code KafkaUser} returns {@link KafkaUsers#connectAs} here.
     */
    protected Map<String, String> kafkaUser() {
        return Map.of();
    }

    @Override
    public void stop() {
        // shared by the whole JVM; a shutdown hook stops it
    }
}
