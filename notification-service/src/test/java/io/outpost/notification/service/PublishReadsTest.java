package io.outpost.notification.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.outpost.notification.messaging.PublishFailedException;

/** Publish bodies share a heap budget by their size: one that does not fit waits, then is refused (503). */
class PublishReadsTest {

    @Test
    void aBodyThatDoesNotFitWaitsForTheOthersAndIsRefusedWhenTheyDoNotEndInTime() throws Exception {
        PublishReads reads = new PublishReads(4 * 1024, Duration.ofMillis(300));
        PublishReads.Share first = reads.enter(3 * 1024);
        long start = System.nanoTime();
        assertThatThrownBy(() -> reads.enter(2 * 1024)).isInstanceOf(PublishFailedException.class)
                .hasMessage("Too many publish bodies are being read; retry shortly");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));

        PublishReads.Share small = reads.enter(1024);
        CompletableFuture<PublishReads.Share> waiting = CompletableFuture.supplyAsync(() -> reads.enter(2 * 1024));
        Thread.sleep(50);
        assertThat(waiting).isNotDone();
        first.release();
        first.release(); // once only: a second release must not grow the budget
        PublishReads.Share second = waiting.get(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> reads.enter(2 * 1024)).isInstanceOf(PublishFailedException.class);
        small.release();
        second.release();
    }

    @Test
    void aBodyLargerThanTheBudgetIsReadAlone() throws Exception {
        PublishReads reads = new PublishReads(4 * 1024, Duration.ofMillis(200));
        PublishReads.Share huge = reads.enter(1024 * 1024);
        assertThatThrownBy(() -> reads.enter(1)).isInstanceOf(PublishFailedException.class);
        huge.release();
        reads.enter(4 * 1024).release();
        reads.enter(0).release();
    }

    /** Measured with ./run-local: a 50-byte publish waited 2.3 s behind 1 MB ones queued for the budget. */
    @Test
    void aSmallBodyWhoseShareIsFreeGoesAheadOfALargeOneWaiting() throws Exception {
        PublishReads reads = new PublishReads(4 * 1024, Duration.ofSeconds(5));
        PublishReads.Share held = reads.enter(3 * 1024);
        CompletableFuture<PublishReads.Share> large = CompletableFuture.supplyAsync(() -> reads.enter(2 * 1024));
        Thread.sleep(100);
        assertThat(large).isNotDone();
        long start = System.nanoTime();
        reads.enter(50).release();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
        held.release();
        large.get(5, TimeUnit.SECONDS).release();
    }
}
