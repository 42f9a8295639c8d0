package io.outpost.support.store;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;

/**
 * Readiness of PostgreSQL, through the pool the requests use: {@code SELECT 1} answered within
 * {@link StoreConfig#healthTimeout()}, so the probe reads DOWN (rather than timing out) when the database is
 * down, hung or out of connections for this instance. Replaces Quarkus's own datasource checks, which wait
 * without a deadline.
 */
@Readiness
@ApplicationScoped
public class StoreReadinessCheck implements AsyncHealthCheck {

    public static final String NAME = "PostgreSQL";

    private final Pool pool;
    private final Duration timeout;

    public StoreReadinessCheck(Pool pool, StoreConfig config) {
        this.pool = pool;
        this.timeout = config.healthTimeout();
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        return pool.query("SELECT 1").execute()
                .ifNoItem().after(timeout).failWith(() -> new StoreUnavailableException(StoreFault.TIMEOUT,
                        "no answer within " + timeout.toMillis() + " ms", null))
                .map(rows -> HealthCheckResponse.named(NAME).up().build())
                .onFailure().recoverWithItem(failure -> HealthCheckResponse.named(NAME).down()
                        .withData("reason", StoreFault.of(failure).label() + ": " + failure.getMessage()).build());
    }
}
