package io.outpost.testsupport;

import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Points a {@code @QuarkusTest} at the real PostgreSQL and Kafka of {@link BackingServices#shared()}: started
 * once per test JVM and shared by every test class (and every restart of the application under test).
 */
public class OutpostTestResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        return BackingServices.shared().quarkusConfig();
    }

    @Override
    public void stop() {
        // shared by the whole JVM; a shutdown hook stops it
    }
}
