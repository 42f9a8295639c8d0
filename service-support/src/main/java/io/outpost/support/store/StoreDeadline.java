package io.outpost.support.store;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import io.smallrye.mutiny.Uni;

/**
 * Puts a deadline on a request-path query and names its outage: past {@link StoreConfig#queryTimeout()}, or
 * when PostgreSQL refuses or drops the connection, the query fails with {@link StoreUnavailableException}
 * (answered 503) instead of hanging or surfacing as a 500. Failures about the data pass through unchanged.
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
