package io.outpost.history.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Every setting of history-service, under {@code outpost.history}. */
@ConfigMapping(prefix = "outpost.history")
public interface HistoryConfig {

    /** Kafka consumer group of the transaction ingest; all replicas share it. */
    @WithDefault("outpost-history")
    String consumerGroup();
}
