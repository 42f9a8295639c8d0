package io.outpost.messaging;

import java.util.List;

import io.smallrye.mutiny.Uni;

/**
 * Makes a batch of valid events durable. Runs on a Vert.x context (Hibernate Reactive and the reactive
 * PostgreSQL client work as usual); the batch's offsets are committed only once the returned Uni completes.
 * A batch may be delivered again after a failure or a crash, so storing must be idempotent.
 */
@FunctionalInterface
public interface BatchStore<E> {

    Uni<Void> store(List<Consumed<E>> batch);
}
