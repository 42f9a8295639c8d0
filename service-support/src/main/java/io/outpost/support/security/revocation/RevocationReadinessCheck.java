package io.outpost.support.security.revocation;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness of the verifier: DOWN, with the reason, until the {@link RevocationFeed} has read the revocation topic
 * since start; UP for good once it has (a later Kafka outage fails open, docs/auth.md "Revocation", and shows in
 * {@code outpost_auth_revocation_feed_connected}, not here).
 */
@Readiness
@ApplicationScoped
public class RevocationReadinessCheck implements HealthCheck {

    public static final String NAME = "Revocations";

    private final RevocationFeed feed;

    public RevocationReadinessCheck(RevocationFeed feed) {
        this.feed = feed;
    }

    @Override
    public HealthCheckResponse call() {
        if (feed.caughtUp()) {
            return HealthCheckResponse.named(NAME).up().build();
        }
        return HealthCheckResponse.named(NAME).down().withData("reason", feed.notCaughtUpReason()).build();
    }
}
