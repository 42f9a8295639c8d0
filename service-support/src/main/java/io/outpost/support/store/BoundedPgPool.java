package io.outpost.support.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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
        PoolOptions pool = pooled(input.poolOptions(), config).setMaxWaitQueueSize(config.maxWaitQueue());
        for (PgConnectOptions options : input.pgConnectOptionsList()) {
            bound(options, config);
        }
        return PgBuilder.pool().with(pool).connectingTo(new ArrayList<SqlConnectOptions>(input.pgConnectOptionsList()))
                .using(input.vertx()).build();
    }

    /**
     * The pool-side bounds of every pool of ours (the connections' own are {@link #bound}):
     * <ul>
     * <li>No wait timeout (Vert.x's default is 30 s): in Vert.x 4.5 its timer is not cancelled when a query is
     * refused because the wait queue is full, and 30 s later it fails the already failed query, which Vert.x logs as
     * an uncaught "Result is already complete" with its stack trace — one per refused query, so a burst of refusals
     * becomes a storm of logging (and garbage) half a minute later. A waiter it does fail also stays queued. The
     * query deadline ({@link StoreDeadline}) bounds the wait instead.</li>
     * <li>Connections idle in the pool are closed by the pool after half the read-idle timeout (sooner if so
     * configured). Left to the read-idle timeout, a pooled connection that nobody used for that long was closed on
     * its own, and a query that took it just before that moment, from a PostgreSQL slow to send its first byte,
     * failed with "connection lost" — a 503 though nothing was down: a burst of polls arriving 60 s after the one
     * before it had 12 refused at once ({@code IdlePooledConnectionTest}).</li>
     * </ul>
     */
    public static PoolOptions pooled(PoolOptions pool, StoreConfig config) {
        pool.setConnectionTimeout(0);
        long readIdle = config.readIdleTimeout().toMillis();
        if (readIdle <= 0) {
            return pool;
        }
        long idle = readIdle / 2;
        if (pool.getIdleTimeout() > 0) {
            idle = Math.min(idle, pool.getIdleTimeoutUnit().toMillis(pool.getIdleTimeout()));
        }
        // the cleaner runs this often: a connection is closed at most one period after its idle timeout
        long period = Math.max(1, Math.min(1_000, readIdle / 10));
        return pool.setIdleTimeoutUnit(TimeUnit.MILLISECONDS).setIdleTimeout((int) Math.max(1, idle))
                .setPoolCleanerPeriod((int) period);
    }

    /**
     * Closes {@code pool}, waiting at most {@code wait}: true when it closed in time. A pool's close waits for each
     * connection's close, which a PostgreSQL that does not answer (frozen, or behind a dead network path) never
     * acknowledges — a stopping instance would wait on it until killed. What is left is released when the process
     * exits.
     */
    public static boolean closeWithin(Pool pool, Duration wait) {
        try {
            pool.close().toCompletionStage().toCompletableFuture().get(wait.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true; // it failed to close: nothing left to wait for
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * The connection-level bounds, also for the connections a service opens beside the pool. Every session asks,
     * when it starts, for:
     * <ul>
     * <li>{@code synchronous_commit=on}, whatever the server's default: the ingests commit Kafka offsets once
     * PostgreSQL said the rows committed (DESIGN §4/§6), which holds only if a commit's WAL is flushed before it
     * says so;</li>
     * <li>{@code lock_timeout} ({@link StoreConfig#lockTimeout()}) and {@code idle_in_transaction_session_timeout}
     * ({@link StoreConfig#idleInTransactionTimeout()}): a session frozen inside a transaction is ended and its locks
     * released, and no statement waits on a lock for longer than the ingest waits for it. Without them a frozen
     * history replica that held a sandbox's writer locks stalled the other replica's ingest for as long as it was
     * frozen, one more waiting backend per retry.</li>
     * </ul>
     */
    public static PgConnectOptions bound(PgConnectOptions options, StoreConfig config) {
        options.addProperty("synchronous_commit", "on");
        options.addProperty("lock_timeout", millis(config.lockTimeout()));
        options.addProperty("idle_in_transaction_session_timeout", millis(config.idleInTransactionTimeout()));
        options.setConnectTimeout((int) config.connectTimeout().toMillis());
        options.setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
        options.setReadIdleTimeout((int) config.readIdleTimeout().toMillis());
        options.setTcpKeepAlive(true);
        return options;
    }

    /** A duration as PostgreSQL's setting in milliseconds (0 turns it off; at most what the setting holds). */
    private static String millis(Duration duration) {
        return Long.toString(Math.max(0, Math.min(Integer.MAX_VALUE, duration.toMillis())));
    }
}
