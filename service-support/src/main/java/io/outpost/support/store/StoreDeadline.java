package io.outpost.support.store;

import java.time.Duration;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;

/**
 * Puts a deadline on a request-path query and names its outage: past {@link StoreConfig#queryTimeout()}, or
 * when PostgreSQL refuses or drops the connection, the query fails with {@link StoreUnavailableException}
 * (answered 503) instead of hanging or surfacing as a 500. Failures about the data pass through unchanged.
 *
 * <p>Past the deadline the query is also cancelled in PostgreSQL when it was sent through {@link #query} (or built
 * of {@link Transactions} calls): its backend stops and its connection goes back to the pool, instead of running
 * on — a slow query to its end, a lock wait to {@code lock_timeout} — for a client already answered 503.
 */
@ApplicationScoped
public class StoreDeadline {

    private final Duration timeout;

    @Inject
    public StoreDeadline(StoreConfig config) {
        this(config.queryTimeout());
    }

    /** For a store made outside CDI (another replica's, in tests). */
    public StoreDeadline(Duration timeout) {
        this.timeout = timeout;
    }

    /** {@code work} on a pooled connection, bounded, and cancelled in PostgreSQL past the deadline. */
    public <T> Uni<T> query(Pool pool, Function<SqlConnection, Uni<T>> work) {
        return bound(Transactions.withConnection(pool, work));
    }

    /**
     * {@code query}, bounded. Past the deadline its subscription is cancelled: what it runs in PostgreSQL stops only
     * if it was made with {@link Transactions} (a Hibernate Reactive session's statement runs on to its end).
     */
    public <T> Uni<T> bound(Uni<T> query) {
        return query.ifNoItem().after(timeout)
                .failWith(() -> new StoreUnavailableException(StoreFault.TIMEOUT,
                        "PostgreSQL did not answer within " + timeout.toMillis() + " ms", null))
                .onFailure(failure -> !(failure instanceof StoreUnavailableException) && StoreFault.of(failure).healable())
                .transform(failure -> new StoreUnavailableException(StoreFault.of(failure),
                        "PostgreSQL is unreachable: " + failure.getMessage(), failure));
    }

    public Duration timeout() {
        return timeout;
    }
}
