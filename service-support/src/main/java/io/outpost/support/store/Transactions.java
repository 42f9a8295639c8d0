package io.outpost.support.store;

import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.jboss.logging.Logger;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.pgclient.PgConnection;

/**
 * Transactions whose caller may stop waiting for them. A deadline on a Mutiny pipeline ({@code ifNoItem().after(…)},
 * the ingest's deadline on a store call) cancels its subscription, but a query already sent to PostgreSQL runs on:
 * a statement waiting for another session's lock kept waiting — holding its pooled connection and its backend —
 * while the caller retried beside it with a new one, one more waiting backend per retry.
 */
public final class Transactions {

    private static final Logger LOG = Logger.getLogger(Transactions.class);

    private Transactions() {
    }

    /**
     * {@code pool.withTransaction(work)}, except that once the returned Uni is cancelled the statement the
     * transaction is running is cancelled in PostgreSQL (a cancel request: it fails with 57014), so the transaction
     * rolls back and its connection returns to the pool at once; if it had not started yet, it never does. A cancel
     * that reaches PostgreSQL between two statements does nothing; a later statement that waits on a lock is still
     * bounded by {@code lock_timeout} ({@link StoreConfig#lockTimeout()}).
     */
    public static <T> Uni<T> withTransaction(Pool pool, Function<SqlConnection, Uni<T>> work) {
        AtomicBoolean abandoned = new AtomicBoolean();
        AtomicReference<SqlConnection> running = new AtomicReference<>();
        return pool.withTransaction(connection -> {
            if (abandoned.get()) {
                return Uni.createFrom().failure(new CancellationException("abandoned before it began"));
            }
            running.set(connection);
            return work.apply(connection).onTermination().invoke(() -> running.set(null));
        }).onCancellation().invoke(() -> {
            abandoned.set(true);
            SqlConnection connection = running.getAndSet(null);
            if (connection != null) {
                PgConnection.cast(connection.getDelegate()).cancelRequest().onFailure(failure -> LOG.debugf(
                        "the cancel request of an abandoned transaction failed: %s", failure.getMessage()));
            }
        });
    }
}
