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
        PoolOptions pool = unTimed(input.poolOptions()).setMaxWaitQueueSize(config.maxWaitQueue());
        for (PgConnectOptions options : input.pgConnectOptionsList()) {
            bound(options, config);
        }
        return PgBuilder.pool().with(pool).connectingTo(new ArrayList<SqlConnectOptions>(input.pgConnectOptionsList()))
                .using(input.vertx()).build();
    }

    /**
     * No pool-side wait timeout (Vert.x's default is 30 s): in Vert.x 4.5 its timer is not cancelled when a query
     * is refused because the wait queue is full, and 30 s later it fails the already failed query, which Vert.x
     * logs as an uncaught "Result is already complete" with its stack trace — one per refused query, so a burst of
     * refusals becomes a storm of logging (and garbage) half a minute later. A waiter it does fail also stays
     * queued. The query deadline ({@link StoreDeadline}) bounds the wait instead.
     */
    public static PoolOptions unTimed(PoolOptions pool) {
        return pool.setConnectionTimeout(0);
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
