package io.outpost.support.store;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * Counts refusals and reports them as one line at most every {@code interval}: the first at once, those that
 * follow within the interval together once it has passed — also when no refusal comes after them (a burst shorter
 * than the interval is reported whole, not as its first request alone), and at the latest when {@link #flush}ed.
 */
public final class RefusalReport {

    private final long intervalNanos;
    private final BiConsumer<Long, String> line;
    private final AtomicLong lastReport;
    private final AtomicLong unreported = new AtomicLong();
    private final AtomicBoolean reportDue = new AtomicBoolean();
    private volatile String lastCause = "";

    /** @param line told (refusals since the last line, the latest refusal's cause) */
    public RefusalReport(long interval, TimeUnit unit, BiConsumer<Long, String> line) {
        this.intervalNanos = unit.toNanos(interval);
        this.line = line;
        this.lastReport = new AtomicLong(System.nanoTime() - intervalNanos);
    }

    /** One refusal, for {@code cause}. */
    public void refused(String cause) {
        lastCause = cause;
        unreported.incrementAndGet();
        report();
    }

    /** Reports now what is unreported, whatever the interval (the service is stopping). */
    public void flush() {
        long refused = unreported.getAndSet(0);
        if (refused > 0) {
            lastReport.set(System.nanoTime());
            line.accept(refused, lastCause);
        }
    }

    private void report() {
        while (true) {
            long now = System.nanoTime();
            long last = lastReport.get();
            long wait = last + intervalNanos - now;
            if (wait <= 0) {
                if (!lastReport.compareAndSet(last, now)) {
                    continue; // another thread reports now, perhaps without this refusal: look again
                }
                long refused = unreported.getAndSet(0);
                if (refused > 0) {
                    line.accept(refused, lastCause);
                }
            } else if (reportDue.compareAndSet(false, true)) {
                Later.SCHEDULER.schedule(() -> {
                    reportDue.set(false);
                    if (unreported.get() > 0) {
                        report();
                    }
                }, wait, TimeUnit.NANOSECONDS);
            }
            return;
        }
    }

    /** The thread that reports what a burst left unreported; started with the first such burst. */
    private static final class Later {
        static final ScheduledExecutorService SCHEDULER = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "outpost-refusal-report");
            thread.setDaemon(true);
            return thread;
        });
    }
}
