package io.outpost.testsupport;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * Boots a service whose PostgreSQL and Kafka addresses lead nowhere (closed loopback ports), to show that its
 * readiness goes DOWN instead of lying. Migrations are skipped, since they would stop the boot.
 */
public class UnreachableBackingServicesProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        int deadPort = FreePorts.pick();
        return Map.of(
                "quarkus.datasource.jdbc.url", "jdbc:postgresql://127.0.0.1:" + deadPort + "/postgres",
                "quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + deadPort + "/postgres",
                "quarkus.datasource.username", "postgres",
                "quarkus.datasource.password", "postgres",
                "kafka.bootstrap.servers", "127.0.0.1:" + deadPort,
                // start-up waits this long for the revocation topic, which it cannot read here
                "outpost.security.revocation.startup-timeout", "PT2S",
                "quarkus.flyway.migrate-at-start", "false");
    }

    @Override
    public boolean disableGlobalTestResources() {
        return true;
    }
}
