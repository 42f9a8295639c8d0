package io.outpost.notification;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.infrastructure.Infrastructure;

/**
 * Mutiny's callbacks run as given: no MicroProfile context is captured when a Uni is subscribed and put in place
 * around each callback (service-support's {@code mp.context.ThreadContext.propagated}, docs/architecture.md).
 */
@QuarkusTest
class ContextPropagationTest {

    @Test
    void callbacksAreNotWrappedInCapturedContexts() {
        Consumer<String> consumer = item -> { };
        Function<String, String> function = item -> item;
        Supplier<String> supplier = () -> "item";
        Runnable runnable = () -> { };

        assertThat(Infrastructure.decorate(consumer)).isSameAs(consumer);
        assertThat(Infrastructure.decorate(function)).isSameAs(function);
        assertThat(Infrastructure.decorate(supplier)).isSameAs(supplier);
        assertThat(Infrastructure.decorate(runnable)).isSameAs(runnable);
    }
}
