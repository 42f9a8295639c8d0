package io.outpost.notification.config;

import java.time.Duration;

import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Every setting of notification-service, under {@code outpost.notification}. */
@ConfigMapping(prefix = "outpost.notification")
public interface NotificationConfig {

    /** How long a notification is kept (counted from when it was stored) before the purge removes it. */
    @WithDefault("P30D")
    Duration retention();

    /** How often the background purge of expired notifications runs. */
    @WithDefault("PT10M")
    Duration purgeInterval();

    /** Concurrent long polls one player may hold on one instance; one more is answered 409. */
    @WithDefault("4")
    int maxPollsPerPlayer();

    /**
     * Concurrent long polls of one player that readers other than the player (a backend holding
     * {@code notification:player:read}) may hold on one instance, counted apart from the player's own, so that no
     * such credential can take the slots of the player's game client; one more is answered 409.
     */
    @WithDefault("4")
    int maxOtherPollsPerPlayer();

    /** Long polls one instance holds at most; one more is answered 503. */
    @WithDefault("50000")
    int maxPolls();

    /** Kafka consumer group of the notification ingest; all replicas share it. */
    @WithDefault("outpost-notification")
    String consumerGroup();

    /**
     * Records stored per ingest batch at most (one transaction; offsets are committed at most every 100 ms). A cap,
     * not a wait: a batch holds what one poll of Kafka brought, so under a steady flow batches stay small and only a
     * backlog fills them. 2,000 stores a warm backlog ≈ 1.3× as fast as 500 on the 2-core box (docs/benchmarks.md,
     * "Decisions"); a batch's bytes stay bounded by the consumer's fetch size either way.
     */
    @WithDefault("2000")
    int ingestBatchSize();

    /** Whether this instance consumes {@code player-notifications} (off for a read-only replica). */
    @WithDefault("true")
    boolean ingestEnabled();

    /**
     * How long one store call of the ingest (a batch's {@code insert}) may take; then it is abandoned — cancelled in
     * PostgreSQL — and the batch retried after a back-off, counted as {@code reason="timeout"}. Keep it above
     * {@code outpost.store.lock-timeout} (10 s), so a writer waiting behind another's locks gives up on its own first.
     */
    @WithDefault("PT30S")
    Duration ingestStoreTimeout();

    /** Pause before the wake-up listener (PostgreSQL LISTEN) reconnects after losing its connection. */
    @WithDefault("PT1S")
    Duration listenReconnectDelay();

    /**
     * How often the wake-up listener checks that its connection still answers (within 5 s); one that does not is
     * given up and replaced, so a silent network costs at most this plus 5 s of missed wake-ups.
     */
    @WithDefault("PT15S")
    Duration listenKeepaliveInterval();

    /**
     * How long the publish endpoint waits for Kafka to acknowledge every record before answering 503. Kafka
     * acknowledges in milliseconds when it is there; once a publish has waited this long, the next ones are
     * refused at once until the cluster answers again.
     */
    @WithDefault("PT3S")
    Duration publishTimeout();

    /**
     * How long, from its arrival, a publish whose notifications Kafka did not acknowledge within
     * {@link #publishTimeout()} is sent again while the cluster answers (its partition lost its leader, and gets a
     * new one ≈ 10 s after losing it, more on a loaded cluster); a notification sent again is stored once (its {@code notification_id}). A publish is
     * answered 503 only once the cluster does not answer or this has passed: then it may, rarely, still have been
     * written. {@code PT0S}: never sent again.
     */
    @WithDefault("PT30S")
    Duration publishRetryWindow();

    /**
     * Bytes of publish bodies read at once, at most (each costs 15–30 times its size in heap while it is read and
     * checked: a body of a million tiny JSON values is a million objects); a publish that does not fit waits up to
     * {@link #publishTimeout()}, then is answered 503. A body larger than this is read alone.
     */
    @WithDefault("4M")
    MemorySize publishReadBudget();
}
