package io.outpost.history;

import static io.outpost.history.HistoryFixture.path;
import static io.outpost.history.HistoryFixture.viewer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;

/**
 * A listing that PostgreSQL does not answer within the query deadline (5 s) is answered 503 — and what it was
 * running in PostgreSQL is cancelled then, not left waiting (here for a lock, up to {@code lock_timeout}, 10 s;
 * a slow query to its end) with a pooled connection held for a client already answered.
 */
@QuarkusTest
class AbandonedReadTest {

    @Inject
    Pool pool;

    /** Backends other than this one running a statement that reads the table of listing totals. */
    private long readingTotals() {
        return pool.query("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() "
                + "AND query LIKE '%history.listing_total%'").execute().await().atMost(Duration.ofSeconds(5))
                .iterator().next().getLong(0);
    }

    @Test
    void aListingPastItsDeadlineIs503AndLeavesNoQueryRunning() {
        UUID sandbox = UUID.randomUUID();
        // once answered before (the first request of an application is slow on a loaded machine)
        assertThat(viewer().when().get(path(sandbox, HistoryFixture.ROLE)).statusCode()).isEqualTo(200);
        // another session holds the listing totals against reads: the listing's total waits for it
        SqlConnection holder = pool.getConnection().await().atMost(Duration.ofSeconds(5));
        Transaction held = holder.begin().await().atMost(Duration.ofSeconds(5));
        try {
            // held idle longer than the pool's sessions may stay idle in a transaction (5 s)
            holder.query("SET LOCAL idle_in_transaction_session_timeout = 0").execute().await().atMost(Duration.ofSeconds(5));
            holder.query("LOCK TABLE history.listing_total IN ACCESS EXCLUSIVE MODE").execute()
                    .await().atMost(Duration.ofSeconds(5));
            Response refused = viewer().when().get(path(sandbox, HistoryFixture.ROLE));
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.header("Retry-After")).isEqualTo("1");
            assertThat(refused.jsonPath().getString("error_code")).isEqualTo("store_unavailable");
            assertThat(refused.jsonPath().getString("desc"))
                    .isEqualTo("The store is unavailable for a moment; retry shortly");
            // the lock is still held: only a cancel ends the wait this soon (lock_timeout would take 10 s)
            await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> assertThat(readingTotals()).as("backends still reading the totals").isZero());
        } finally {
            held.rollback().await().atMost(Duration.ofSeconds(5));
            holder.close().await().atMost(Duration.ofSeconds(5));
        }
        // the connections of the abandoned listing are back in the pool, usable
        Response next = viewer().when().get(path(sandbox, HistoryFixture.ROLE));
        assertThat(next.statusCode()).isEqualTo(200);
        assertThat(next.jsonPath().getList("transactions")).isEmpty();
        assertThat(next.jsonPath().getLong("page_meta.total")).isZero();
    }
}
