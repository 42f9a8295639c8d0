package io.outpost.testsupport;

import java.lang.management.ManagementFactory;
import java.util.function.IntConsumer;

/** Heap bytes a piece of code allocates per call, for tests that bound what a hot path costs. */
public final class Allocations {

    /** Measured rounds after the warm-up; the least is reported. */
    private static final int ROUNDS = 5;

    private Allocations() {
    }

    /**
     * Runs {@code call} {@code calls} times to warm it up, then {@value #ROUNDS} rounds of as many calls on this
     * thread, and returns the bytes allocated per call in the round that allocated least ({@code call} is given the
     * call's number). A one-off allocation on this thread during a round (a class initialised, a deoptimisation, the
     * bean's own bookkeeping: a few hundred bytes once) would otherwise lift a figure that is a whole number of bytes
     * per call by a fraction and fail a bound set at it; a cost every call pays shows in every round.
     */
    public static double bytesPerCall(int calls, IntConsumer call) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < calls; i++) {
            call.accept(i);
        }
        long least = Long.MAX_VALUE;
        for (int round = 0; round < ROUNDS; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < calls; i++) {
                call.accept(i);
            }
            least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
        }
        return (double) least / calls;
    }
}
