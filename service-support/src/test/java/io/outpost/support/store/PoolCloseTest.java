package io.outpost.support.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.outpost.testsupport.ProcessFreeze;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;

/**
 * A stopping instance does not wait on a PostgreSQL that does not answer: a pool's own close waits for every
 * connection's, which a frozen server (SIGSTOP, as behind a dead network path) never acknowledges.
 */
class PoolCloseTest {

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    /** A pool with two open connections. */
    private Pool pool() throws Exception {
        PostgresConnection pg = BackingServices.shared().postgres();
        Pool pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(2))
                .connectingTo(new PgConnectOptions().setHost(pg.host()).setPort(pg.port()).setDatabase(pg.database())
                        .setUser(pg.username()).setPassword(pg.password()))
                .using(vertx).build();
        Future.all(pool.query("SELECT pg_sleep(0.2)").execute(), pool.query("SELECT pg_sleep(0.2)").execute())
                .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        return pool;
    }

    @Test
    void aPoolIsClosedWhenPostgreSqlAnswers() throws Exception {
        assertThat(BoundedPgPool.closeWithin(pool(), Duration.ofSeconds(10))).isTrue();
    }

    @Test
    void aPoolWhosePostgreSqlDoesNotAnswerIsLeftAfterTheWait() throws Exception {
        Pool pool = pool();
        try (ProcessFreeze frozen = ProcessFreeze.postgres()) {
            Future<Void> closing = pool.close();
            CompletableFuture<Boolean> bounded = CompletableFuture.supplyAsync(
                    () -> BoundedPgPool.closeWithin(pool, Duration.ofSeconds(1)));
            assertThat(bounded.get(20, TimeUnit.SECONDS)).as("closed in time").isFalse();
            assertThat(closing.isComplete()).as("the pool's own close, while PostgreSQL is frozen").isFalse();
        }
    }
}
