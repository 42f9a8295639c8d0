package io.outpost.support.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** How 503 refusals are reported: one line per interval at most, every refusal counted in some line. */
class RefusalReportTest {

    private static final long INTERVAL_MILLIS = 300;

    private record Line(long refused, String cause, long atNanos) {
    }

    private final List<Line> lines = new CopyOnWriteArrayList<>();
    private final RefusalReport report = new RefusalReport(INTERVAL_MILLIS, TimeUnit.MILLISECONDS,
            (refused, cause) -> lines.add(new Line(refused, cause, System.nanoTime())));

    @Test
    void aBurstShorterThanTheIntervalIsReportedWholeOnceTheIntervalHasPassed() throws Exception {
        long start = System.nanoTime();
        for (int i = 0; i < 1_000; i++) {
            report.refused("cause " + i);
        }
        // the first at once, alone
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0).refused()).isEqualTo(1);
        assertThat(lines.get(0).cause()).isEqualTo("cause 0");
        // the other 999, with no refusal after them, one interval later, with the latest cause
        await().atMost(Duration.ofSeconds(5)).until(() -> lines.size() == 2);
        assertThat(lines.get(1).refused()).isEqualTo(999);
        assertThat(lines.get(1).cause()).isEqualTo("cause 999");
        assertThat(TimeUnit.NANOSECONDS.toMillis(lines.get(1).atNanos() - start)).isGreaterThanOrEqualTo(INTERVAL_MILLIS);
        // nothing more to say
        Thread.sleep(3 * INTERVAL_MILLIS);
        assertThat(lines).hasSize(2);
    }

    @Test
    void aFlushReportsWhatIsUnreportedAtOnceAndOnlyOnce() throws Exception {
        for (int i = 0; i < 10; i++) {
            report.refused("stopping " + i);
        }
        report.flush();
        assertThat(lines).extracting(Line::refused, Line::cause)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, "stopping 0"),
                        org.assertj.core.groups.Tuple.tuple(9L, "stopping 9"));
        report.flush();
        Thread.sleep(2 * INTERVAL_MILLIS);
        assertThat(lines).hasSize(2);
    }

    @Test
    void refusalsFurtherApartThanTheIntervalAreEachReportedAtOnce() throws Exception {
        report.refused("first");
        Thread.sleep(INTERVAL_MILLIS + 50);
        report.refused("second");
        assertThat(lines).extracting(Line::refused, Line::cause)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, "first"),
                        org.assertj.core.groups.Tuple.tuple(1L, "second"));
        Thread.sleep(2 * INTERVAL_MILLIS);
        assertThat(lines).hasSize(2);
    }

    @Test
    void concurrentRefusalsAreEachCountedOnceAndLinesStayApart() throws Exception {
        int threads = 4;
        int each = 20_000;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> refusing = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    report.refused("busy");
                    if (i % 2_000 == 0) {
                        sleepQuietly(50); // spread over a few intervals
                    }
                }
            });
            thread.start();
            refusing.add(thread);
        }
        go.countDown();
        for (Thread thread : refusing) {
            thread.join();
        }
        await().atMost(Duration.ofSeconds(5))
                .until(() -> lines.stream().mapToLong(Line::refused).sum() == (long) threads * each);
        Thread.sleep(2 * INTERVAL_MILLIS);
        assertThat(lines.stream().mapToLong(Line::refused).sum()).isEqualTo((long) threads * each);
        for (int i = 1; i < lines.size(); i++) {
            // a small tolerance for the delayed executor's scheduling granularity
            assertThat(TimeUnit.NANOSECONDS.toMillis(lines.get(i).atNanos() - lines.get(i - 1).atNanos()))
                    .as("line %d follows line %d after the interval", i, i - 1)
                    .isGreaterThanOrEqualTo(INTERVAL_MILLIS - 5);
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
