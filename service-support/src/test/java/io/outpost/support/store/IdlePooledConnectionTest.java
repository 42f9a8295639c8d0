package io.outpost.support.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

/**
 * A connection left idle in the pool is closed by the pool, not under the query that takes it next: with only the
 * read-idle timeout, a query handed a connection just before that timeout fired failed with "connection lost" (a 503
 * on the request path) though PostgreSQL was fine, only slow to answer. Real PostgreSQL, frozen (SIGSTOP) for
 * 1.5 s to be slow; the read-idle timeout shortened to 4 s.
 */
class IdlePooledConnectionTest {

    private static final Duration READ_IDLE = Duration.ofSeconds(4);
    private static final int CONNECTIONS = 8;

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    static StoreConfig config() {
        return TestStoreConfig.defaults().readIdle(READ_IDLE);
    }

    /** Starts {@code CONNECTIONS} queries at once, each sleeping {@code seconds} in PostgreSQL: their backends' pids. */
    private static List<Future<Integer>> sleepOnEveryConnection(Pool pool, double seconds) {
        List<Future<Integer>> queries = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            queries.add(pool.preparedQuery("SELECT pg_backend_pid() AS pid, pg_sleep($1)").execute(Tuple.of(seconds))
                    .map(rows -> rows.iterator().next()).map((Row row) -> row.getInteger("pid")));
        }
        return queries;
    }

    private static List<Integer> pids(List<Future<Integer>> queries) throws Exception {
        List<Integer> pids = new ArrayList<>();
        for (Future<Integer> query : queries) {
            pids.add(query.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS));
        }
        return pids;
    }

    @Test
    void aQueryOnAConnectionIdleAlmostUpToTheReadIdleTimeoutIsNotCutOff() throws Exception {
        PostgresConnection pg = BackingServices.shared().postgres();
        StoreConfig config = config();
        PgConnectOptions options = BoundedPgPool.bound(new PgConnectOptions().setHost(pg.host()).setPort(pg.port())
                .setDatabase(pg.database()).setUser(pg.username()).setPassword(pg.password()), config);
        Pool pool = PgBuilder.pool().with(BoundedPgPool.pooled(new PoolOptions().setMaxSize(CONNECTIONS), config))
                .connectingTo(options).using(vertx).build();

        Set<Integer> first = new HashSet<>(pids(sleepOnEveryConnection(pool, 0.2)));
        assertThat(first).hasSize(CONNECTIONS);
        // every connection idle for 3.5 s, then PostgreSQL slow to answer (frozen) past the 4 s read-idle timeout
        Thread.sleep(READ_IDLE.toMillis() - 500);
        List<Future<Integer>> second;
        try (ProcessFreeze frozen = ProcessFreeze.postgres()) {
            second = sleepOnEveryConnection(pool, 0.1);
            Thread.sleep(1_500);
        }

        List<Integer> answered = pids(second);
        assertThat(answered).as("every query answered once PostgreSQL did").hasSize(CONNECTIONS);
        assertThat(answered).as("the pool closed its idle connections itself and opened new ones")
                .doesNotContainAnyElementsOf(first);
    }
}
