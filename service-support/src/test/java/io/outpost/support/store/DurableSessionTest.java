package io.outpost.support.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;

/**
 * What every session of ours asks for when it starts, whatever the server's defaults. The ingests commit Kafka
 * offsets once PostgreSQL says a batch committed, so a commit must mean flushed: {@code synchronous_commit=on}. The
 * test run's throw-away PostgreSQL runs with it off by default (as a server configured for speed would), which a
 * session without the setting shows.
 */
class DurableSessionTest {

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private String show(PgConnectOptions options, String setting) throws Exception {
        Pool pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(1)).connectingTo(options).using(vertx).build();
        try {
            return pool.query("SHOW " + setting).execute().map(rows -> rows.iterator().next().getString(0))
                    .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } finally {
            pool.close();
        }
    }

    private static PgConnectOptions plain() {
        PostgresConnection pg = BackingServices.shared().postgres();
        return new PgConnectOptions().setHost(pg.host()).setPort(pg.port()).setDatabase(pg.database())
                .setUser(pg.username()).setPassword(pg.password());
    }

    @Test
    void everySessionCommitsDurablyWhateverTheServersDefault() throws Exception {
        assertThat(show(plain(), "synchronous_commit")).as("the server's default here").isEqualTo("off");
        assertThat(show(BoundedPgPool.bound(plain(), IdlePooledConnectionTest.config()), "synchronous_commit"))
                .isEqualTo("on");
    }

    /**
     * ... and bounds its lock waits and the time it may keep a transaction open doing nothing (the server's defaults:
     * no bound), from {@link StoreConfig}: a frozen holder of locks is cut off, and its waiters give up in time
     * ({@code StalledTransactionTest}).
     */
    @Test
    void everySessionBoundsItsLockWaitsAndItsIdleTransactions() throws Exception {
        assertThat(show(plain(), "lock_timeout")).as("the server's default").isEqualTo("0");
        assertThat(show(plain(), "idle_in_transaction_session_timeout")).as("the server's default").isEqualTo("0");
        PgConnectOptions ours = BoundedPgPool.bound(plain(), TestStoreConfig.defaults());
        assertThat(show(ours, "lock_timeout")).isEqualTo("10s");
        assertThat(show(ours, "idle_in_transaction_session_timeout")).isEqualTo("5s");
        PgConnectOptions off = BoundedPgPool.bound(plain(), TestStoreConfig.defaults().lockWait(Duration.ZERO)
                .idleInTransaction(Duration.ofMillis(1500)));
        assertThat(show(off, "lock_timeout")).as("zero: no bound").isEqualTo("0");
        assertThat(show(off, "idle_in_transaction_session_timeout")).isEqualTo("1500ms");
    }
}
