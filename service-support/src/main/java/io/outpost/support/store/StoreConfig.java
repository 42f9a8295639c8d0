package io.outpost.support.store;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * How long a service waits on PostgreSQL, under {@code outpost.store}. Shared by every service: whatever the
 * database does (refuses, hangs, is paused), a request is answered within seconds and the pool's queue of
 * waiting requests cannot grow without bound.
 */
@ConfigMapping(prefix = "outpost.store")
public interface StoreConfig {

    /**
     * Deadline of one request-path query, waiting for a pooled connection included; past it the request is
     * answered 503 {@code store_unavailable}.
     */
    @WithDefault("PT5S")
    Duration queryTimeout();

    /** Deadline of opening a new connection to PostgreSQL. */
    @WithDefault("PT3S")
    Duration connectTimeout();

    /** Requests that may wait for a pooled connection at once; one more fails at once (503). */
    @WithDefault("1024")
    int maxWaitQueue();

    /**
     * A connection that reads nothing for this long is closed: a query whose server stopped answering (a
     * network partition) frees its connection instead of holding it until the operating system gives up
     * (≈15 min). Idle pooled connections are re-opened on demand, so this only costs a reconnect after a quiet
     * spell. Keep it far above the slowest query.
     */
    @WithDefault("PT60S")
    Duration readIdleTimeout();

    /** Deadline of the readiness check's {@code SELECT 1}: below the probe's timeout. */
    @WithDefault("PT2S")
    Duration healthTimeout();

    /**
     * How long a statement may wait for a lock another session holds (PostgreSQL's {@code lock_timeout}, asked for
     * by every session when it starts); then it fails with SQLSTATE 55P03, a {@link StoreFault#TIMEOUT}: the batch is
     * retried, the request answered 503. Below the ingest's deadline on one store call ({@code ingest-store-timeout}
     * of each consuming service, 30 s), so a writer waiting behind another's locks gives up — and frees its backend —
     * before its call is abandoned and retried beside the backend still waiting. Zero: wait without end.
     */
    @WithDefault("PT10S")
    Duration lockTimeout();

    /**
     * A session that keeps a transaction open without sending anything for this long is ended by PostgreSQL
     * ({@code idle_in_transaction_session_timeout}): its transaction rolls back and its locks are released. A
     * client frozen or cut off inside a transaction (a replica stopped by SIGSTOP or a long pause) would otherwise
     * hold its locks — and stall every writer behind them — until it came back. Our transactions send their
     * statements one after the other and last milliseconds; the one cut fails with a {@link StoreFault#CONNECTION}
     * and is retried. Zero: no limit.
     */
    @WithDefault("PT5S")
    Duration idleInTransactionTimeout();
}
