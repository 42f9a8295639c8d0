package io.outpost.messaging;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * What an operator alerts on for one consumed topic (docs/operations.md): records stored and dead-lettered (by
 * reason), batches retried (by reason), how far behind the consumer is, and how long since the last commit; and
 * where a record's time goes: from its timestamp until this instance consumed it and until it was stored, and how
 * long a batch's store took (histograms).
 */
final class IngestMetrics {

    /** Bucket bounds of the histograms: fine where a healthy ingest lives (milliseconds), coarse up to a minute. */
    private static final Duration[] BUCKETS = List.of(1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 75, 100, 150, 250,
            500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000).stream().map(Duration::ofMillis).toArray(Duration[]::new);

    private final String topic;
    private final MeterRegistry registry;
    private final Counter stored;
    private final Counter storedBeside;
    private final Counter commits;
    private final ConcurrentHashMap<String, Counter> deadLettered = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> retried = new ConcurrentHashMap<>();
    private final Timer consumedDelay;
    private final Timer storedDelay;
    private final Timer batchStore;
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
        this.commits = Counter.builder("outpost.ingest.commits").tag("topic", topic)
                .description("Offset commits of the topic the broker acknowledged (each covers every batch stored "
                        + "since the one before)").register(this.registry);
        this.consumedDelay = delay(topic, "consumed");
        this.storedDelay = delay(topic, "stored");
        this.batchStore = Timer.builder("outpost.ingest.batch.store").tag("topic", topic).serviceLevelObjectives(BUCKETS)
                .description("How long the store took to store a batch of the topic (and have its dead letters "
                        + "acknowledged), from the store thread taking it; batches that failed are not counted")
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

    private Timer delay(String topic, String stage) {
        return Timer.builder("outpost.ingest.record.delay").tag("topic", topic).tag("stage", stage)
                .serviceLevelObjectives(BUCKETS)
                .description("From a record's timestamp (its producer's clock, or the broker's for LogAppendTime "
                        + "topics) until this instance consumed it, or stored it in a batch that went through")
                .register(registry);
    }

    /** A polled record, now (epoch milliseconds). */
    void consumed(ConsumerRecord<?, ?> record, long nowMillis) {
        since(consumedDelay, record.timestamp(), nowMillis);
    }

    /** A batch the store went through with in {@code nanos}, its valid records now stored (epoch milliseconds). */
    void batchStored(List<? extends Consumed<?>> records, long nanos, long nowMillis) {
        batchStore.record(nanos, TimeUnit.NANOSECONDS);
        for (Consumed<?> record : records) {
            since(storedDelay, record.timestamp(), nowMillis);
        }
    }

    /** No timestamp (-1) and one ahead of this clock (another host's, or a producer's own choice) are not timed. */
    private static void since(Timer timer, long timestampMillis, long nowMillis) {
        if (timestampMillis >= 0 && timestampMillis <= nowMillis) {
            timer.record(nowMillis - timestampMillis, TimeUnit.MILLISECONDS);
        }
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

    /** A refused record whose dead letter Kafka would never take: skipped, not retried (its log line says which). */
    void letterSkipped(String reason) {
        Counter.builder("outpost.ingest.dead.letters.skipped").tag("topic", topic).tag("reason", reason)
                .description("Refused records of the topic whose dead letter Kafka refused as too large: skipped")
                .register(registry).increment();
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
        commits.increment();
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
