package io.outpost.auth.service;

import jakarta.inject.Singleton;

import io.outpost.support.store.StoreDeadline;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * A request-path query with service-support's deadline ({@code outpost.store.query-timeout}: past it, or on an
 * outage, it fails with {@code StoreUnavailableException}, answered 503), its result delivered back on the caller's
 * Vert.x context: a deadline fires on another thread, and the Hibernate Reactive session and the request belong to
 * that context.
 */
@Singleton
public class StoreCalls {

    private final StoreDeadline deadline;

    public StoreCalls(StoreDeadline deadline) {
        this.deadline = deadline;
    }

    public <T> Uni<T> bound(Uni<T> query) {
        Context context = Vertx.currentContext();
        Uni<T> bounded = deadline.bound(query);
        return context == null ? bounded : bounded.emitOn(task -> context.runOnContext(ignored -> task.run()));
    }
}
