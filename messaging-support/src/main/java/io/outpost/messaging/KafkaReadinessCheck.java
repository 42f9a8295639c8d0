package io.outpost.messaging;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness of the Kafka cluster, answered within a few seconds. (The stock check waits for the Admin
 * client's default API timeout, a minute, so a probe would time out instead of reading DOWN.)
 */
@Readiness
@ApplicationScoped
public class KafkaReadinessCheck implements HealthCheck {

    static final String NAME = "Kafka cluster";
    private static final int TIMEOUT_MS = 3000;

    private final String bootstrapServers;
    private volatile Admin admin;

    public KafkaReadinessCheck(@ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    @Override
    public HealthCheckResponse call() {
        try {
            String nodes = admin().describeCluster(new DescribeClusterOptions().timeoutMs(TIMEOUT_MS)).nodes()
                    .get(TIMEOUT_MS + 1000L, TimeUnit.MILLISECONDS).stream()
                    .map(Node::host).collect(Collectors.joining(","));
            return HealthCheckResponse.named(NAME).up().withData("nodes", nodes).build();
        } catch (Exception e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            return HealthCheckResponse.named(NAME).down()
                    .withData("reason", cause.getClass().getSimpleName() + ": " + cause.getMessage()).build();
        }
    }

    private Admin admin() {
        Admin current = admin;
        if (current == null) {
            synchronized (this) {
                if (admin == null) {
                    admin = Admin.create(Map.of(
                            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, TIMEOUT_MS,
                            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, TIMEOUT_MS,
                            AdminClientConfig.CLIENT_ID_CONFIG, "outpost-readiness"));
                }
                current = admin;
            }
        }
        return current;
    }

    @PreDestroy
    void close() {
        if (admin != null) {
            admin.close(java.time.Duration.ofSeconds(2));
        }
    }
}
