package io.outpost.messaging;

import java.util.Map;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Batches failed: why the first did, and per partition the first offset to read again — of the failed batch and of
 * every batch stored beside it or prepared behind it, so that one failure rewinds all that was not committed.
 */
record Rewind(Throwable failure, Map<TopicPartition, Long> from) {

    /** Adds the partitions of {@code starts} the failed batches did not have. */
    void alsoFrom(Map<TopicPartition, Long> starts) {
        starts.forEach(from::putIfAbsent);
    }

    /** Moves the consumer back to {@link #from} on every partition it still owns. */
    void seek(KafkaConsumer<byte[], byte[]> kafka) {
        from.forEach((partition, offset) -> seek(kafka, partition, offset));
    }

    static void seek(KafkaConsumer<byte[], byte[]> kafka, TopicPartition partition, long offset) {
        try {
            kafka.seek(partition, offset);
        } catch (IllegalStateException revoked) {
            // no longer ours: its next owner starts from the last committed offset
        }
    }
}
