package io.outpost.support.store;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.jboss.logging.Logger;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.pgclient.PgConnection;

/**
 * Transactions and statements whose caller may stop waiting for them. A deadline on a Mutiny pipeline
 * ({@code ifNoItem().after(…)}: the request path's {@link StoreDeadline}, the ingest's deadline on a store call)
 * cancels its subscription, but a query already sent to PostgreSQL runs on: a statement waiting for another
 * session's lock kept waiting — holding its pooled connection and its backend — while the caller retried beside it
 * with a new one, one more waiting backend per retry; a slow read answered 503 kept its backend busy to the end.
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
        return cancellable(work, pool::withTransaction);
    }

    /**
     * {@code pool.withConnection(work)} — one pooled connection for {@code work}'s statements (one statement is its own
     * transaction) — cancelled in PostgreSQL as {@link #withTransaction} is once the returned Uni is cancelled.
     */
    public static <T> Uni<T> withConnection(Pool pool, Function<SqlConnection, Uni<T>> work) {
        return cancellable(work, pool::withConnection);
    }

    private static <T> Uni<T> cancellable(Function<SqlConnection, Uni<T>> work,
            Function<Function<SqlConnection, Uni<T>>, Uni<T>> on) {
        return Uni.createFrom().deferred(() -> {
            AtomicBoolean abandoned = new AtomicBoolean();
            AtomicReference<SqlConnection> running = new AtomicReference<>();
            // done once a cancel request sent for the connection has ended: till then the connection is not given
            // back, so a cancel arriving late never hits the next statement someone else runs on that backend
            CompletableFuture<Void> cancelEnded = new CompletableFuture<>();
            return on.apply(connection -> {
                running.set(connection);
                if (abandoned.get()) {
                    return released(running, connection, cancelEnded)
                            .chain(() -> Uni.createFrom().failure(new CancellationException("abandoned before it began")));
                }
                return work.apply(connection).onTermination().call(() -> released(running, connection, cancelEnded));
            }).onCancellation().invoke(() -> {
                abandoned.set(true);
                SqlConnection connection = running.getAndSet(null);
                if (connection != null) {
                    PgConnection.cast(connection.getDelegate()).cancelRequest().onComplete(sent -> {
                        if (sent.failed()) {
                            LOG.debugf("the cancel request of an abandoned statement failed: %s", sent.cause().getMessage());
                        }
                        cancelEnded.complete(null);
                    });
                }
            });
        });
    }

    /** Once the connection may go back to the pool: at once, or when the cancel request that took it has ended. */
    private static Uni<Void> released(AtomicReference<SqlConnection> running, SqlConnection connection,
            CompletableFuture<Void> cancelEnded) {
        return running.compareAndSet(connection, null) ? Uni.createFrom().voidItem()
                : Uni.createFrom().completionStage(cancelEnded);
    }
}
