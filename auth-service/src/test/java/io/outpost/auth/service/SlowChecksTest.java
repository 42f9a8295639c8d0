package io.outpost.auth.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import io.outpost.auth.TestConfigs;

/** A full slow-check queue refuses at once (answered 503 by the endpoints) instead of queueing without bound. */
class SlowChecksTest {

    @Test
    void aFullQueueRefusesFurtherChecks() throws Exception {
        SlowChecks checks = new SlowChecks(TestConfigs.auth(Map.of("secrets.kdf-threads", "1", "secrets.kdf-queue", "1")));
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        Runnable blocked = () -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        try {
            assertThat(checks.submit(blocked)).as("runs").isTrue();
            started.await();
            assertThat(checks.submit(blocked)).as("waits in the queue").isTrue();
            assertThat(checks.submit(blocked)).as("refused").isFalse();
        } finally {
            release.countDown();
            checks.stop();
        }
    }
}
