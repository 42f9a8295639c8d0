package io.outpost.auth.service;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

import io.smallrye.mutiny.Uni;
import io.vertx.pgclient.PgException;
import io.vertx.core.Context;
import io.vertx.core.VertxException;
import io.vertx.core.Vertx;

/**
 * PostgreSQL did not answer within {@code store-timeout}, or cannot be reached: answered 503
 * {@code store_unavailable} (docs/auth.md), never a hang and never a 500.
 */
public class StoreUnavailableException extends RuntimeException {

    public StoreUnavailableException(String message) {
        super(message, null, false, false);
    }

    /** The same outage, as this exception (without the cause's stack: it is about the database, not the request). */
    public static StoreUnavailableException of(Throwable outage) {
        return outage instanceof StoreUnavailableException same ? same
                : new StoreUnavailableException(outage.toString());
    }

    /**
     * Whether a failure means the database is unreachable or too slow (a deadline, a lost or refused connection, a
     * full pool), as opposed to a refusal of the statement itself, which is a defect (500).
     */
    public static boolean isOutage(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof PgException refused) {
                // connection exceptions, insufficient resources, operator intervention; anything else is the statement
                String state = refused.getSqlState() == null ? "" : refused.getSqlState();
                return state.startsWith("08") || state.startsWith("53") || state.startsWith("57P");
            }
            if (t instanceof StoreUnavailableException || t instanceof TimeoutException
                    || t instanceof io.smallrye.mutiny.TimeoutException || t instanceof IOException
                    || t instanceof VertxException || t.getClass().getName().equals(
                            "io.vertx.core.impl.NoStackTraceThrowable")) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /**
     * {@code work} with a deadline: past it, or on an outage, it fails with this exception; the result is delivered
     * on the caller's Vert.x context (Hibernate Reactive sessions belong to it).
     */
    public static <T> Uni<T> within(Duration deadline, Uni<T> work) {
        Context context = Vertx.currentContext();
        Uni<T> bounded = work.ifNoItem().after(deadline)
                .failWith(() -> new StoreUnavailableException("no answer within " + deadline))
                .onFailure(StoreUnavailableException::isOutage).transform(StoreUnavailableException::of);
        return context == null ? bounded : bounded.emitOn(task -> context.runOnContext(ignored -> task.run()));
    }
}
