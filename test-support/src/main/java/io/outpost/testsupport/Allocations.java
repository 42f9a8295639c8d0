package io.outpost.testsupport;

import java.lang.management.ManagementFactory;
import java.util.function.IntConsumer;

/** Heap bytes a piece of code allocates per call, for tests that bound what a hot path costs. */
public final class Allocations {

    private Allocations() {
    }

    /**
     * Runs {@code call} {@code calls} times to warm it up, then as many times again on this thread, and returns the
     * bytes allocated per call in the second round ({@code call} is given the call's number).
     */
    public static double bytesPerCall(int calls, IntConsumer call) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < calls; i++) {
            call.accept(i);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < calls; i++) {
            call.accept(i);
        }
        return (double) (threads.getCurrentThreadAllocatedBytes() - before) / calls;
    }
}
