package io.outpost.notification.config;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Every setting of notification-service, under {@code outpost.notification}. */
@ConfigMapping(prefix = "outpost.notification")
public interface NotificationConfig {

    /** How long a stored notification is kept before the background purge removes it (DESIGN §4). */
    @WithDefault("P30D")
    Duration retention();

    /** Concurrent long polls one player may hold on one instance; one more is answered 409. */
    @WithDefault("4")
    int maxPollsPerPlayer();

    /** Long polls one instance holds at most; one more is answered 503. */
    @WithDefault("50000")
    int maxPolls();

    /** Kafka consumer group of the notification ingest; all replicas share it. */
    @WithDefault("outpost-notification")
    String consumerGroup();
}
