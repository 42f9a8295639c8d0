package io.outpost.auth.repository;

import java.util.List;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Singleton;

import io.outpost.auth.config.AuthConfig;
import io.quarkus.reactive.pg.client.PgPoolCreator;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;

/**
 * The reactive PostgreSQL pool with bounded waits: at most {@value #MAX_WAITING} requests wait for a connection, none
 * longer than {@code store-timeout}, and connecting gives up after it too. With PostgreSQL hung (no answer, not
 * refused) requests then fail fast and are answered 503 instead of piling up without end.
 */
@Singleton
public class BoundedPool implements PgPoolCreator {

    static final int MAX_WAITING = 128;

    private final AuthConfig config;

    public BoundedPool(AuthConfig config) {
        this.config = config;
    }

    @Override
    public Pool create(Input input) {
        int timeoutMillis = (int) config.storeTimeout().toMillis();
        PoolOptions pool = input.poolOptions().setMaxWaitQueueSize(MAX_WAITING)
                .setConnectionTimeout(timeoutMillis).setConnectionTimeoutUnit(TimeUnit.MILLISECONDS);
        for (PgConnectOptions connection : input.pgConnectOptionsList()) {
            connection.setConnectTimeout(timeoutMillis).setTcpKeepAlive(true);
        }
        return PgBuilder.pool().with(pool).connectingTo(List.copyOf(input.pgConnectOptionsList()))
                .using(input.vertx()).build();
    }
}
