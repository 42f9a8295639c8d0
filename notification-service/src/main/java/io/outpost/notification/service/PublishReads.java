package io.outpost.notification.service;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import io.outpost.notification.config.NotificationConfig;
import io.outpost.notification.messaging.PublishFailedException;

/**
 * Bounds the heap that publish bodies take while they are read and checked: a body is bound into objects (each
 * entry a record of strings, {@code custom_data} kept as its text: 15–30 times its size for one of many tiny
 * values), so twenty large bodies at once — one per worker thread — could exhaust the heap (three 9 MB bodies take
 * a replica with {@code -Xmx512m} out of heap). Each read holds a
 * share of {@code outpost.notification.publish-read-budget} by its size (in KiB), until its publish ends — a small
 * one whose share is free goes ahead of large ones waiting for theirs —; one that does not get its share within
 * the publish timeout is refused 503, as a publish Kafka does not take is. Never called on an event loop: it may
 * wait.
 */
@ApplicationScoped
public class PublishReads {

    /** A share of the budget, returned once (further calls do nothing). */
    public interface Share {
        void release();
    }

    private final Semaphore budget;
    private final int total;
    private final long waitMillis;

    @Inject
    public PublishReads(NotificationConfig config) {
        this(config.publishReadBudget().asLongValue(), config.publishTimeout());
    }

    PublishReads(long budgetBytes, Duration wait) {
        this.total = (int) Math.max(1, budgetBytes / 1024);
        // not fair: a small body whose share is free goes ahead of large ones waiting for theirs
        this.budget = new Semaphore(total);
        this.waitMillis = wait.toMillis();
    }

    /** Takes the share of a body of {@code bytes} (all the budget, at most), waiting up to the publish timeout. */
    public Share enter(int bytes) {
        int kib = (int) Math.min(total, Math.max(1, (bytes + 1023L) / 1024));
        boolean taken;
        try {
            taken = budget.tryAcquire(kib, waitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            taken = false;
        }
        if (!taken) {
            throw new PublishFailedException("Too many publish bodies are being read; retry shortly", null);
        }
        AtomicBoolean held = new AtomicBoolean(true);
        return () -> {
            if (held.compareAndSet(true, false)) {
                budget.release(kib);
            }
        };
    }
}
