package io.outpost.messaging;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * What an operator alerts on for one consumed topic (docs/operations.md): records stored and dead-lettered (by
 * reason), batches retried (by reason), how far behind the consumer is, and how long since the last commit.
 */
final class IngestMetrics {

    private final String topic;
    private final MeterRegistry registry;
    private final Counter stored;
    private final Counter storedBeside;
    private final ConcurrentHashMap<String, Counter> deadLettered = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> retried = new ConcurrentHashMap<>();
    private final AtomicLong lag = new AtomicLong();
    private volatile long lastCommitNanos = System.nanoTime();

    IngestMetrics(String topic, MeterRegistry registry) {
        this.topic = topic;
        this.registry = registry != null ? registry : new SimpleMeterRegistry();
        this.stored = Counter.builder("outpost.ingest.records.stored").tag("topic", topic)
                .description("Records of the topic stored (a re-delivered one counts again)").register(this.registry);
        this.storedBeside = Counter.builder("outpost.ingest.batches.stored.beside").tag("topic", topic)
                .description("Batches of the topic given to the store while an earlier one was still being stored")
                .register(this.registry);
        Gauge.builder("outpost.ingest.consumer.lag", lag, AtomicLong::get).tag("topic", topic)
                .description("Records not yet consumed on the partitions this instance owns").register(this.registry);
        Gauge.builder("outpost.ingest.last.commit.age", this, IngestMetrics::secondsSinceCommit).tag("topic", topic)
                .baseUnit("seconds")
                .description("Seconds since this instance last committed offsets (or started consuming)")
                .register(this.registry);
        // every (topic, reason) at zero from the start: a first letter is then an increase() like any other,
        // instead of a series that appears at 1 (the alert OutpostDeadLettersGrowing relies on it)
        Refusals.REASONS.forEach(this::deadLetters);
    }

    void stored(int count) {
        stored.increment(count);
    }

    void storedBeside() {
        storedBeside.increment();
    }

    void deadLettered(String reason) {
        deadLetters(reason).increment();
    }

    private Counter deadLetters(String reason) {
        return deadLettered.computeIfAbsent(reason, r -> Counter.builder("outpost.ingest.records.dead.lettered")
                .tag("topic", topic).tag("reason", r)
                .description("Records of the topic sent to its dead-letter topic, by reason").register(registry));
    }

    void retried(String reason) {
        retried.computeIfAbsent(reason, r -> Counter.builder("outpost.ingest.batches.retried")
                .tag("topic", topic).tag("reason", r)
                .description("Batches of the topic retried after a failure, by reason").register(registry))
                .increment();
    }

    void lag(long records) {
        lag.set(records);
    }

    void committed() {
        lastCommitNanos = System.nanoTime();
    }

    /** Counted by the loop too when idle (nothing to commit is not a stall). */
    void idle() {
        if (lag.get() == 0) {
            lastCommitNanos = System.nanoTime();
        }
    }

    private double secondsSinceCommit() {
        return (System.nanoTime() - lastCommitNanos) / 1e9;
    }
}
