package io.outpost.support.store;

import java.io.IOException;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeoutException;

import io.vertx.pgclient.PgException;

/**
 * Why PostgreSQL did not take a write or answer a read, sorted by what to do about it:
 * <ul>
 * <li>{@link #healable()} faults (connection lost, timeout, serialization failure, deadlock, too many
 * connections) pass: retry with back-off, or answer 503 to a request;</li>
 * <li>{@link #DATA} — the store refused the data itself (SQLSTATE classes 22 data exception, 23 integrity
 * constraint, 54 program limit exceeded, or our own code refusing a value): no retry can fix it, so the records
 * at fault are isolated and dead-lettered;</li>
 * <li>{@link #OTHER} — anything else (a missing privilege, a missing table, an internal error): not about one
 * record, possibly fixed by an operator; retried with back-off and counted, so an alert can fire.</li>
 * </ul>
 * The {@link #label()} is the {@code reason} of the metrics (docs/operations.md).
 */
public enum StoreFault {
    CONNECTION, TIMEOUT, SERIALIZATION, DEADLOCK, TOO_MANY_CONNECTIONS, DATA, OTHER;

    private static final Set<String> DATA_CLASSES = Set.of("22", "23", "54");

    /** Passes by itself: retry later, answer 503 meanwhile. */
    public boolean healable() {
        return this != DATA && this != OTHER;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Sorts a failure of a query or a store. The causes are searched (Hibernate Reactive, Mutiny and
     * {@code CompletionException} wrap the driver's failure). A failure none of whose causes is the database's
     * or the network's is {@link #DATA} only when at its root lies our own code refusing a value
     * ({@link IllegalArgumentException}, {@link java.time.DateTimeException}, {@link ArithmeticException}); anything
     * else unknown is {@link #OTHER}, retried rather than dead-lettered, so a fault we did not foresee never sends
     * valid records to the dead-letter topic.
     */
    public static StoreFault of(Throwable failure) {
        int depth = 0;
        Throwable root = failure;
        for (Throwable t = failure; t != null && depth < 16; t = t.getCause(), depth++) {
            StoreFault known = known(t);
            if (known != null) {
                return known;
            }
            root = t;
        }
        return root instanceof IllegalArgumentException || root instanceof java.time.DateTimeException
                || root instanceof ArithmeticException ? DATA : OTHER;
    }

    private static StoreFault known(Throwable t) {
        if (t instanceof StoreUnavailableException unavailable) {
            return unavailable.fault();
        }
        if (t instanceof PgException pg) {
            return ofSqlState(pg.getSqlState());
        }
        String name = t.getClass().getSimpleName();
        if (t instanceof TimeoutException || t instanceof io.smallrye.mutiny.TimeoutException || name.contains("Timeout")
                || name.equals("NoStackTraceThrowable") && "Timeout".equals(t.getMessage())) {
            return TIMEOUT; // also Vert.x's pool and connect timeouts (NoStackTraceTimeoutException, ...)
        }
        if (name.equals("ConnectionPoolTooBusyException")) {
            return TIMEOUT; // the bounded wait queue is full: this instance is overloaded for now
        }
        if (t instanceof IOException || t instanceof io.vertx.sqlclient.ClosedConnectionException
                || name.contains("Closed") || t.getClass().getName().startsWith("io.netty.")) {
            return CONNECTION; // refused, reset, closed channel
        }
        if ((t instanceof io.vertx.core.VertxException || name.equals("NoStackTraceThrowable"))
                && String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT).contains("connection")) {
            // "Connection is closed", "Connection reset", "Failed to connect"; a statement sent on a connection the
            // server ended (an idle-in-transaction timeout): "Connection is not active now, current status: CLOSED"
            return CONNECTION;
        }
        return null;
    }

    static StoreFault ofSqlState(String state) {
        if (state == null || state.length() != 5) {
            return OTHER;
        }
        switch (state) {
            case "40001":
                return SERIALIZATION;
            case "40P01":
                return DEADLOCK;
            case "53300":
                return TOO_MANY_CONNECTIONS;
            case "57014": // query canceled (statement_timeout, a cancel request)
            case "55P03": // lock not available (lock_timeout)
                return TIMEOUT;
            case "57P01": // admin shutdown
            case "57P02": // crash shutdown
            case "57P03": // cannot connect now (starting up, recovering)
            case "25P03": // idle-in-transaction timeout
                return CONNECTION;
            default:
                break;
        }
        String kind = state.substring(0, 2);
        if (kind.equals("08")) {
            return CONNECTION;
        }
        if (kind.equals("40")) {
            return SERIALIZATION; // other transaction rollbacks: run it again
        }
        return DATA_CLASSES.contains(kind) ? DATA : OTHER;
    }
}
