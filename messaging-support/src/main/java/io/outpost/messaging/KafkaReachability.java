package io.outpost.messaging;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.support.kafka.KafkaClientSettings;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;

/**
 * Whether the Kafka cluster answers, asked every few seconds in the background (never on a request's path):
 * the gauge {@code outpost_kafka_reachable} (1/0) for operators, and a fast refusal for the publish endpoint
 * while the cluster is away. Not a readiness check: this service's reads need only PostgreSQL, so a Kafka
 * outage must not take its replicas out of their Service.
 */
@ApplicationScoped
public class KafkaReachability {

    private static final Logger LOG = Logger.getLogger(KafkaReachability.class);
    private static final Duration EVERY = Duration.ofSeconds(2);
    private static final int TIMEOUT_MS = 2000;

    private final String bootstrapServers;
    private final Vertx vertx;
    private volatile Admin admin;
    private volatile boolean reachable = true; // until the first answer says otherwise
    private volatile boolean asking;
    private long timer = -1;

    public KafkaReachability(@ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers, Vertx vertx,
            MeterRegistry meters) {
        this.bootstrapServers = bootstrapServers;
        this.vertx = vertx;
        Gauge.builder("outpost.kafka.reachable", this, k -> k.reachable ? 1 : 0)
                .description("1 while the Kafka cluster answers this instance, else 0").register(meters);
    }

    void start(@Observes StartupEvent event) {
        ask();
        timer = vertx.setPeriodic(EVERY.toMillis(), id -> ask());
    }

    /** The last answer: false once the cluster failed to answer within a few seconds, until it answers again. */
    public boolean reachable() {
        return reachable;
    }

    /** A client of the cluster gave up waiting for it: unreachable until the next check says otherwise. */
    public void unanswered() {
        if (reachable) {
            LOG.infof("Kafka cluster %s did not answer a client in time", bootstrapServers);
        }
        reachable = false;
    }

    private void ask() {
        if (asking) {
            return;
        }
        asking = true;
        askNow().whenComplete((answered, failure) -> asking = false);
    }

    /**
     * Asks the cluster now whether it answers (within 2 s), records the answer as {@link #reachable()} does the
     * background check's, and completes with it.
     */
    public CompletionStage<Boolean> askNow() {
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        try {
            admin().describeCluster(new DescribeClusterOptions().timeoutMs(TIMEOUT_MS)).nodes()
                    .whenComplete((nodes, failure) -> answer.complete(failure == null && !nodes.isEmpty()));
        } catch (RuntimeException e) {
            answer.complete(false);
        }
        return answer.thenApply(now -> {
            if (now != reachable) {
                LOG.infof("Kafka cluster %s is %s", bootstrapServers, now ? "reachable again" : "unreachable");
            }
            reachable = now;
            return now;
        });
    }

    private Admin admin() {
        Admin current = admin;
        if (current == null) {
            synchronized (this) {
                if (admin == null) {
                    Map<String, Object> settings = new HashMap<>(KafkaClientSettings.configured());
                    settings.putAll(Map.of(
                            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, TIMEOUT_MS,
                            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, TIMEOUT_MS,
                            AdminClientConfig.CLIENT_ID_CONFIG, "outpost-reachability"));
                    admin = Admin.create(settings);
                }
                current = admin;
            }
        }
        return current;
    }

    @PreDestroy
    void close() {
        if (timer != -1) {
            vertx.cancelTimer(timer);
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(2));
        }
    }
}
