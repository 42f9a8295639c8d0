package io.outpost.history.messaging;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;

import io.outpost.messaging.TopicIngest;
import io.outpost.model.event.ConfigTransactionEvent;

/**
 * DOWN only when the ingest thread has died, which nothing but a restart repairs. A database or broker
 * outage keeps it UP (the thread retries; readiness reports the outage), with the failure being retried.
 */
@Liveness
@ApplicationScoped
public class IngestLivenessCheck implements HealthCheck {

    static final String NAME = "History ingest";

    private final TransactionIngest ingest;

    public IngestLivenessCheck(TransactionIngest ingest) {
        this.ingest = ingest;
    }

    @Override
    public HealthCheckResponse call() {
        TopicIngest<ConfigTransactionEvent> running = ingest.ingest();
        HealthCheckResponseBuilder response = HealthCheckResponse.named(NAME);
        if (running == null) {
            return response.up().withData("consuming", false).build();
        }
        response.status(running.isRunning()).withData("consuming", true)
                .withData("stored", running.storedCount()).withData("dead_lettered", running.deadLetteredCount());
        Throwable failure = running.lastFailure();
        if (failure != null) {
            response.withData("retrying_after", failure.getClass().getSimpleName());
        }
        return response.build();
    }
}
