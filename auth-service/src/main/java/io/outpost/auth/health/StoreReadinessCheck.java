package io.outpost.auth.health;

import java.time.Duration;

import jakarta.inject.Singleton;

import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import io.outpost.auth.config.AuthConfig;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;

/**
 * Ready while PostgreSQL answers {@code SELECT 1} within {@code store-timeout}: the answer comes within that time
 * even when PostgreSQL hangs, well inside a readiness probe's timeout (Quarkus's own datasource checks wait up to
 * 20 s and are switched off). auth-service keeps issuing tokens to the clients it holds while not ready.
 */
@Readiness
@Singleton
public class StoreReadinessCheck implements AsyncHealthCheck {

    static final String NAME = "PostgreSQL";

    private final Pool pool;
    private final Duration timeout;

    public StoreReadinessCheck(Pool pool, AuthConfig config) {
        this.pool = pool;
        this.timeout = config.storeTimeout();
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        return pool.query("SELECT 1").execute().map(rows -> HealthCheckResponse.up(NAME))
                .ifNoItem().after(timeout).fail()
                .onFailure().recoverWithItem(failure -> HealthCheckResponse.named(NAME).down()
                        .withData("reason", failure.toString()).build());
    }
}
