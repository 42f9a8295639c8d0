package io.outpost.auth.service;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import io.outpost.auth.config.AuthConfig;

/**
 * The small pool that runs slow (KDF) secret checks ({@code secrets.kdf-threads}) with a bounded queue
 * ({@code secrets.kdf-queue}): a flood of bad credentials costs at most these threads, and beyond the queue
 * requests are answered 503 at once instead of waiting.
 */
@Singleton
public class SlowChecks {

    private final ThreadPoolExecutor pool;

    public SlowChecks(AuthConfig config) {
        int threads = config.secrets().kdfThreads();
        AtomicInteger count = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(Math.max(1, config.secrets().kdfQueue())), task -> {
                    Thread thread = new Thread(task, "outpost-secret-check-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
    }

    /** Queues a check; false when the queue is full. */
    public boolean submit(Runnable check) {
        try {
            pool.execute(check);
            return true;
        } catch (RejectedExecutionException full) {
            return false;
        }
    }

    @PreDestroy
    void stop() {
        pool.shutdownNow();
    }
}
