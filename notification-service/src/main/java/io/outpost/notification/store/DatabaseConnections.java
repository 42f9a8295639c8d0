package io.outpost.notification.store;

import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.smallrye.common.annotation.Identifier;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;

/**
 * The connections this service opens beside the Quarkus reactive pool, to the same database: the ingest's own
 * small pool and the LISTEN connection of {@link WakeSubscriber}.
 */
@ApplicationScoped
public class DatabaseConnections {

    public static final String INGEST = "ingest";
    /** One ingest thread stores one batch at a time; the second connection covers a rebalance overlap. */
    private static final int INGEST_CONNECTIONS = 2;

    private final String url;
    private final Optional<String> user;
    private final Optional<String> password;

    public DatabaseConnections(@ConfigProperty(name = "quarkus.datasource.reactive.url") String url,
            @ConfigProperty(name = "quarkus.datasource.username") Optional<String> user,
            @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    PgConnectOptions options() {
        PgConnectOptions options = PgConnectOptions.fromUri(url.startsWith("vertx-reactive:")
                ? url.substring("vertx-reactive:".length()) : url).setCachePreparedStatements(true);
        user.ifPresent(options::setUser);
        password.ifPresent(options::setPassword);
        return options;
    }

    @Produces
    @Singleton
    @Identifier(INGEST)
    Pool ingestPool(io.vertx.core.Vertx vertx) {
        return Pool.newInstance(PgBuilder.pool().with(new PoolOptions().setMaxSize(INGEST_CONNECTIONS).setName("ingest"))
                .connectingTo(options()).using(vertx).build());
    }

    void close(@Disposes @Identifier(INGEST) Pool pool) {
        pool.closeAndAwait();
    }
}
