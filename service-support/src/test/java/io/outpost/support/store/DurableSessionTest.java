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
 * The ingests commit Kafka offsets once PostgreSQL says a batch committed, so a commit must mean flushed: every
 * session of ours asks for {@code synchronous_commit=on} itself. The test run's throw-away PostgreSQL runs with it
 * off by default (as a server configured for speed would), which a session without the setting shows.
 */
class DurableSessionTest {

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private String synchronousCommit(PgConnectOptions options) throws Exception {
        Pool pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(1)).connectingTo(options).using(vertx).build();
        try {
            return pool.query("SHOW synchronous_commit").execute().map(rows -> rows.iterator().next().getString(0))
                    .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } finally {
            pool.close();
        }
    }

    @Test
    void everySessionCommitsDurablyWhateverTheServersDefault() throws Exception {
        PostgresConnection pg = BackingServices.shared().postgres();
        PgConnectOptions plain = new PgConnectOptions().setHost(pg.host()).setPort(pg.port())
                .setDatabase(pg.database()).setUser(pg.username()).setPassword(pg.password());
        assertThat(synchronousCommit(plain)).as("the server's default here").isEqualTo("off");
        PgConnectOptions ours = BoundedPgPool.bound(new PgConnectOptions().setHost(pg.host()).setPort(pg.port())
                .setDatabase(pg.database()).setUser(pg.username()).setPassword(pg.password()), IdlePooledConnectionTest.config());
        assertThat(synchronousCommit(ours)).isEqualTo("on");
    }
}
