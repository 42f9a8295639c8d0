package io.outpost.notification.store;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import io.outpost.support.store.StoreReadinessCheck;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;

/**
 * Health of the wake-up listener. Not ready while it does not listen: a poll held here would wait for its
 * deadline instead of being woken. Not live only when it has not listened for {@link #DEAD_AFTER} although
 * PostgreSQL answers this instance's pool — the case a restart repairs; while PostgreSQL itself is away it
 * stays live (a restart would not help).
 */
@ApplicationScoped
public class WakeListenerChecks {

    public static final String NAME = "Wake-up listener";
    static final Duration DEAD_AFTER = Duration.ofMinutes(2);

    @Produces
    @Readiness
    @ApplicationScoped
    HealthCheck listening(WakeListener listener) {
        return () -> HealthCheckResponse.named(NAME).status(listener.listening()).build();
    }

    @Produces
    @Liveness
    @ApplicationScoped
    AsyncHealthCheck alive(WakeListener listener, @Readiness StoreReadinessCheck store) {
        return () -> {
            if (listener.downFor().compareTo(DEAD_AFTER) < 0) {
                return Uni.createFrom().item(HealthCheckResponse.named(NAME).up().build());
            }
            return store.call().map(database -> HealthCheckResponse.named(NAME)
                    .status(database.getStatus() == HealthCheckResponse.Status.DOWN)
                    .withData("not listening for", listener.downFor().toSeconds() + " s").build());
        };
    }
}
