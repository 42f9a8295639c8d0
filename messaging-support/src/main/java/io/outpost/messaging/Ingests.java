package io.outpost.messaging;

import java.util.List;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;

import io.quarkus.arc.All;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;

/**
 * Starts every {@link ConsumedTopic} of the service with the application and stops each before the application
 * stops. Its liveness check is DOWN only when an ingest loop died or is stuck, which only a restart repairs; an
 * unreachable database or broker keeps it UP (the loop retries, and the metrics show it).
 */
@Liveness
@ApplicationScoped
public class Ingests implements org.eclipse.microprofile.health.HealthCheck {

    public static final String NAME = "Kafka ingest";

    private final List<ConsumedTopic<?>> topics;

    public Ingests(@All List<ConsumedTopic<?>> topics) {
        this.topics = topics;
    }

    void start(@Observes StartupEvent event) {
        topics.stream().filter(ConsumedTopic::enabled).forEach(ConsumedTopic::start);
    }

    void stop(@Observes @Priority(10) ShutdownEvent event) {
        topics.forEach(ConsumedTopic::stop);
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named(NAME).up();
        for (ConsumedTopic<?> topic : topics) {
            topic.running().ifPresentOrElse(ingest -> {
                if (!ingest.isAlive()) {
                    response.down();
                }
                response.withData(topic.topic(), ingest.isAlive() ? "consuming" : "stopped or stuck");
                Throwable failure = ingest.lastFailure();
                if (failure != null) {
                    response.withData(topic.topic() + " retrying after", failure.getClass().getSimpleName());
                }
            }, () -> response.withData(topic.topic(), topic.enabled() ? "stopped" : "not consumed here"));
        }
        return response.build();
    }
}
