package io.outpost.support.store;

import java.util.ArrayList;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Singleton;

import io.quarkus.reactive.pg.client.PgPoolCreator;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnectOptions;

/**
 * Creates each service's reactive PostgreSQL pool with the bounds of {@link StoreConfig} that Quarkus has no
 * settings for: a bounded queue of requests waiting for a connection, a connect timeout, and a read-idle timeout
 * that frees connections whose server went silent.
 */
@Singleton
public class BoundedPgPool implements PgPoolCreator {

    private final StoreConfig config;

    public BoundedPgPool(StoreConfig config) {
        this.config = config;
    }

    @Override
    public Pool create(Input input) {
        // Not PoolOptions.connectionTimeout: in Vert.x 4.5 its timer is never cancelled (every query logs
        // "Result is already complete" once it fires) and a waiter it fails stays queued, so a burst fills the wait
        // queue with requests already given up. The query deadline (StoreDeadline) bounds the wait instead.
        PoolOptions pool = input.poolOptions().setMaxWaitQueueSize(config.maxWaitQueue());
        for (PgConnectOptions options : input.pgConnectOptionsList()) {
            bound(options, config);
        }
        return PgBuilder.pool().with(pool).connectingTo(new ArrayList<SqlConnectOptions>(input.pgConnectOptionsList()))
                .using(input.vertx()).build();
    }

    /** The connection-level bounds, also for the connections a service opens beside the pool. */
    public static PgConnectOptions bound(PgConnectOptions options, StoreConfig config) {
        options.setConnectTimeout((int) config.connectTimeout().toMillis());
        options.setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
        options.setReadIdleTimeout((int) config.readIdleTimeout().toMillis());
        options.setTcpKeepAlive(true);
        return options;
    }
}
