package io.outpost.support.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.smallrye.mutiny.TimeoutException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Transaction;
import io.vertx.sqlclient.Tuple;

/**
 * A writer holding locks inside a transaction and then going silent (its process frozen by SIGSTOP, a long pause)
 * must not stall the writers waiting for those locks for as long as it is silent, and a writer whose caller gave
 * up waiting must not stay behind in PostgreSQL, waiting on: real PostgreSQL, a transaction-scoped advisory lock
 * (as history-service's writers take them).
 */
class StalledTransactionTest {

    private final Vertx vertx = Vertx.vertx();
    /** The lock of this test: an advisory key no other test takes. */
    private final int key = ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE);

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static PgConnectOptions plain() {
        PostgresConnection pg = BackingServices.shared().postgres();
        return new PgConnectOptions().setHost(pg.host()).setPort(pg.port()).setDatabase(pg.database())
                .setUser(pg.username()).setPassword(pg.password());
    }

    /** A pool of one connection, bounded as a service's are ({@code config} null: PostgreSQL's defaults, no bound). */
    private Pool pool(StoreConfig config) {
        return PgBuilder.pool().with(new PoolOptions().setMaxSize(1))
                .connectingTo(config == null ? plain() : BoundedPgPool.bound(plain(), config)).using(vertx).build();
    }

    private static <T> T get(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    /** A transaction of {@code pool} that holds the lock and then sends nothing, as a frozen client. */
    private Transaction holdLock(Pool pool) throws Exception {
        SqlConnection connection = get(pool.getConnection());
        Transaction transaction = get(connection.begin());
        get(connection.preparedQuery("SELECT pg_advisory_xact_lock($1)").execute(Tuple.of((long) key)));
        return transaction;
    }

    /** Backends waiting for the lock. */
    private long waiting(Pool monitor) throws Exception {
        return get(monitor.preparedQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                + "AND classid = 0 AND objid::bigint = $1 AND objsubid = 1").execute(Tuple.of((long) key)))
                .iterator().next().getLong(0);
    }

    @Test
    void aTransactionLeftIdleIsEndedAndTheWriterWaitingForItsLockGoesOn() throws Exception {
        // the waiter would wait 30 s: only the end of the idle holder lets it on
        StoreConfig config = TestStoreConfig.defaults().idleInTransaction(Duration.ofSeconds(1))
                .lockWait(Duration.ofSeconds(30));
        Transaction held = holdLock(pool(config));
        long start = System.nanoTime();
        get(pool(config).withTransaction(connection -> connection.preparedQuery("SELECT pg_advisory_xact_lock($1)")
                .execute(Tuple.of((long) key))));
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        assertThat(waited).as("the waiter had the lock once the holder was idle for 1 s").isLessThan(Duration.ofSeconds(5));

        // the holder, back: its session is gone, and what it finds is a lost connection (retried, never DATA)
        assertThatThrownBy(() -> get(held.commit())).satisfies(failure -> assertThat(StoreFault.of(failure))
                .as("%s", failure).isEqualTo(StoreFault.CONNECTION));
    }

    @Test
    void aWriterWaitingLongerThanTheLockTimeoutGivesUpWithAFailureThatHeals() throws Exception {
        Pool holder = pool(null); // busy for longer than any bound: not idle, say
        Pool monitor = pool(null);
        Transaction held = holdLock(holder);
        try {
            StoreConfig config = TestStoreConfig.defaults().lockWait(Duration.ofSeconds(1));
            long start = System.nanoTime();
            assertThatThrownBy(() -> get(pool(config).withTransaction(connection -> connection
                    .preparedQuery("SELECT pg_advisory_xact_lock($1)").execute(Tuple.of((long) key)))))
                    .satisfies(failure -> {
                        assertThat(failure).hasCauseInstanceOf(PgException.class);
                        assertThat(((PgException) failure.getCause()).getSqlState()).isEqualTo("55P03");
                        assertThat(StoreFault.of(failure)).isEqualTo(StoreFault.TIMEOUT);
                        assertThat(StoreFault.of(failure).healable()).isTrue();
                    });
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            assertThat(waiting(monitor)).as("backends still waiting for the lock").isZero();
        } finally {
            get(held.rollback());
        }
    }

    /** Backends running a {@code pg_sleep} of {@code seconds} (other than the asking one). */
    private static long sleeping(Pool monitor, int seconds) throws Exception {
        return get(monitor.preparedQuery("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                + "AND pid <> pg_backend_pid() AND query = $1").execute(Tuple.of("SELECT pg_sleep(" + seconds + ")")))
                .iterator().next().getLong(0);
    }

    @Test
    void aQueryPastItsDeadlineIsUnavailableAndCancelledInPostgreSQL() throws Exception {
        Pool monitor = pool(null);
        io.vertx.mutiny.sqlclient.Pool ours = io.vertx.mutiny.sqlclient.Pool.newInstance(pool(TestStoreConfig.defaults()));
        int seconds = 50 + ThreadLocalRandom.current().nextInt(1000); // this test's query, told apart from others'
        StoreDeadline deadline = new StoreDeadline(Duration.ofMillis(500));
        assertThatThrownBy(() -> deadline.query(ours, connection -> connection.query("SELECT pg_sleep(" + seconds + ")")
                .execute()).await().atMost(Duration.ofSeconds(10)))
                .isInstanceOfSatisfying(StoreUnavailableException.class,
                        unavailable -> assertThat(unavailable.fault()).isEqualTo(StoreFault.TIMEOUT));
        // a slow query is bounded by nothing else: only the cancel ends it
        await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> assertThat(sleeping(monitor, seconds)).as("backends still sleeping").isZero());
        // the pool's one connection is back, usable
        assertThat(deadline.query(ours, connection -> connection.query("SELECT 1").execute())
                .await().atMost(Duration.ofSeconds(2)).iterator().next().getInteger(0)).isEqualTo(1);
    }

    @Test
    void aTransactionItsCallerStoppedWaitingForLeavesNoBackendWaiting() throws Exception {
        Pool holder = pool(null);
        Pool monitor = pool(null);
        Transaction held = holdLock(holder);
        try {
            // a lock wait of a minute: only the cancel can end it within the test's bound
            io.vertx.mutiny.sqlclient.Pool ours = io.vertx.mutiny.sqlclient.Pool.newInstance(
                    pool(TestStoreConfig.defaults().lockWait(Duration.ofSeconds(60))));
            assertThatThrownBy(() -> Transactions.withTransaction(ours, connection -> connection
                    .preparedQuery("SELECT pg_advisory_xact_lock($1)").execute(io.vertx.mutiny.sqlclient.Tuple.of((long) key)))
                    .ifNoItem().after(Duration.ofMillis(500)).fail().await().atMost(Duration.ofSeconds(10)))
                    .isInstanceOf(TimeoutException.class);
            await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> assertThat(waiting(monitor)).as("backends still waiting for the lock").isZero());
            // its one connection is back in the pool, out of the transaction
            assertThat(ours.query("SELECT 1").execute().await().atMost(Duration.ofSeconds(2)).iterator().next()
                    .getInteger(0)).isEqualTo(1);
        } finally {
            get(held.rollback());
        }
    }
}
