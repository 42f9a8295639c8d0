package io.outpost.support.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;

import io.vertx.core.http.ConnectionPoolTooBusyException;
import io.vertx.core.impl.NoStackTraceThrowable;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;

/**
 * How failures are sorted (docs/architecture.md): only what no retry can fix is {@code DATA} (and dead-lettered),
 * what passes is retried, and what nobody foresaw is retried too — never a valid record dead-lettered for it.
 */
class StoreFaultTest {

    private static PgException pg(String sqlState) {
        return new PgException("message", "ERROR", sqlState, null);
    }

    @Test
    void theStoreRefusingTheDataIsData() {
        assertThat(StoreFault.of(pg("22021"))).isEqualTo(StoreFault.DATA); // invalid byte sequence
        assertThat(StoreFault.of(pg("22003"))).isEqualTo(StoreFault.DATA); // numeric out of range
        assertThat(StoreFault.of(pg("23514"))).isEqualTo(StoreFault.DATA); // check violation
        assertThat(StoreFault.of(pg("54000"))).isEqualTo(StoreFault.DATA); // program limit (row too big)
        assertThat(StoreFault.of(new CompletionException(new IllegalArgumentException("unwritable"))))
                .isEqualTo(StoreFault.DATA);
    }

    @Test
    void whatPassesByItselfIsHealable() {
        assertThat(StoreFault.of(pg("40001"))).isEqualTo(StoreFault.SERIALIZATION);
        assertThat(StoreFault.of(pg("40P01"))).isEqualTo(StoreFault.DEADLOCK);
        assertThat(StoreFault.of(pg("53300"))).isEqualTo(StoreFault.TOO_MANY_CONNECTIONS);
        assertThat(StoreFault.of(pg("08006"))).isEqualTo(StoreFault.CONNECTION);
        assertThat(StoreFault.of(pg("57P01"))).isEqualTo(StoreFault.CONNECTION);
        assertThat(StoreFault.of(pg("57014"))).isEqualTo(StoreFault.TIMEOUT); // cancelled (statement, request)
        assertThat(StoreFault.of(pg("55P03"))).isEqualTo(StoreFault.TIMEOUT); // lock_timeout
        assertThat(StoreFault.of(pg("25P03"))).isEqualTo(StoreFault.CONNECTION); // idle-in-transaction timeout
        assertThat(StoreFault.of(new ConnectException("Connection refused"))).isEqualTo(StoreFault.CONNECTION);
        assertThat(StoreFault.of(ClosedConnectionException.INSTANCE)).isEqualTo(StoreFault.CONNECTION);
        // a statement on a connection PostgreSQL ended (its transaction idle past the timeout), as Vert.x says it
        assertThat(StoreFault.of(new CompletionException(new NoStackTraceThrowable(
                "Connection is not active now, current status: CLOSED")))).isEqualTo(StoreFault.CONNECTION);
        assertThat(StoreFault.of(new ConnectionPoolTooBusyException("queue full"))).isEqualTo(StoreFault.TIMEOUT);
        // Vert.x's pool timeout, as it reaches the ingest: wrapped, without a stack trace, its type saying nothing
        assertThat(StoreFault.of(new CompletionException(new NoStackTraceThrowable("Timeout"))))
                .isEqualTo(StoreFault.TIMEOUT);
        assertThat(StoreFault.of(new CompletionException(new NoStackTraceThrowable("Timeout"))).healable()).isTrue();
    }

    @Test
    void whatNobodyForesawIsRetriedNotDeadLettered() {
        assertThat(StoreFault.of(pg("42501"))).isEqualTo(StoreFault.OTHER); // insufficient privilege
        assertThat(StoreFault.of(pg("42P01"))).isEqualTo(StoreFault.OTHER); // undefined table
        assertThat(StoreFault.of(new CompletionException(new RuntimeException("surprise")))).isEqualTo(StoreFault.OTHER);
        assertThat(StoreFault.of(new NullPointerException())).isEqualTo(StoreFault.OTHER);
        assertThat(StoreFault.of(new NoStackTraceThrowable("something else"))).isEqualTo(StoreFault.OTHER);
    }
}
