package io.outpost.notification.store;

import java.time.Duration;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.outpost.support.store.BoundedPgPool;
import io.outpost.support.store.StoreConfig;
import io.smallrye.common.annotation.Identifier;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;

/**
 * The connections this service opens beside the Quarkus reactive pool, to the same database: the ingest's own
 * small pool and the LISTEN connection of {@link WakeListener}, both bounded like the main pool
 * ({@link BoundedPgPool}).
 */
@ApplicationScoped
public class DatabaseConnections {

    /**
     * The longest statement text these pools keep prepared. Vert.x's default (2,048 characters) leaves a longer one
     * unnamed: parsed and planned again on every execution, which cost the batch insert ≈ 2 ms a batch
     * ({@code NotificationSqlTest} keeps every statement within the limit of the pool that runs it).
     */
    static final int STATEMENT_CACHE_SQL_LIMIT = 8192;

    public static final String INGEST = "ingest";
    /**
     * How this instance's ingest connections name themselves to PostgreSQL: unique per process, so the
     * announcements of what this instance stored can be told from others' (V5__announce_origin.sql).
     */
    public static final String INGEST_APPLICATION_NAME = "outpost-ingest-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    /**
     * The ingest stores up to this many batches at once, one connection each: batches of different players, so a
     * notification does not wait for another player's commit (NotificationIngest).
     */
    public static final int INGEST_CONNECTIONS = 2;
    private static final Logger LOG = Logger.getLogger(DatabaseConnections.class);
    /** The most a stopping instance waits for the ingest pool to close. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

    private final String url;
    private final Optional<String> user;
    private final Optional<String> password;
    private final StoreConfig store;

    public DatabaseConnections(@ConfigProperty(name = "quarkus.datasource.reactive.url") String url,
            @ConfigProperty(name = "quarkus.datasource.username") Optional<String> user,
            @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password, StoreConfig store) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.store = store;
    }

    private PgConnectOptions options() {
        PgConnectOptions options = PgConnectOptions.fromUri(url.startsWith("vertx-reactive:")
                ? url.substring("vertx-reactive:".length()) : url).setCachePreparedStatements(true)
                .setPreparedStatementCacheSqlLimit(STATEMENT_CACHE_SQL_LIMIT);
        user.ifPresent(options::setUser);
        password.ifPresent(options::setPassword);
        return options;
    }

    /**
     * The LISTEN connection: a connect timeout, but no read-idle timeout (it is quiet between announcements;
     * {@link WakeListener} checks it itself).
     */
    PgConnectOptions listenOptions() {
        PgConnectOptions options = options();
        options.setConnectTimeout((int) store.connectTimeout().toMillis());
        options.setTcpKeepAlive(true);
        options.addProperty("application_name", WakeListener.APPLICATION_NAME);
        return options;
    }

    @Produces
    @Singleton
    @Identifier(INGEST)
    Pool ingestPool(io.vertx.core.Vertx vertx) {
        PoolOptions pool = BoundedPgPool.pooled(new PoolOptions().setMaxSize(INGEST_CONNECTIONS).setName("ingest"), store);
        return Pool.newInstance(PgBuilder.pool().with(pool)
                .connectingTo(BoundedPgPool.bound(options(), store).addProperty("application_name", INGEST_APPLICATION_NAME))
                .using(vertx).build());
    }

    /** Stopping does not wait on a PostgreSQL that does not answer (at most {@link #CLOSE_WAIT}). */
    void close(@Disposes @Identifier(INGEST) Pool pool) {
        if (!BoundedPgPool.closeWithin(pool.getDelegate(), CLOSE_WAIT)) {
            LOG.infof("the ingest pool's connections did not close within %s (PostgreSQL does not answer); "
                    + "left to the process exit", CLOSE_WAIT);
        }
    }
}
