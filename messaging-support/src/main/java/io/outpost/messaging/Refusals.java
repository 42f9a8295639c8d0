package io.outpost.messaging;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.apache.kafka.common.TopicPartition;

import io.outpost.model.error.ErrorType;

/**
 * What the ingest knows about refused records of batches not yet committed, by where they sit: why each was
 * refused (so a batch retried after a failure does not split the store's refusals out again), and which of
 * their dead letters Kafka already acknowledged (so a retry sends none twice). Forgotten once committed past.
 * Used from the consumer's thread, the store's thread and the dead-letter producer's callbacks.
 */
final class Refusals {

    /** The reason of a record the store itself refused ({@link io.outpost.support.store.StoreFault#DATA}). */
    static final String STORE_REFUSED = "store_refused";

    /** Every reason a record may be refused for: a fault type of DESIGN §5 (the first of its faults), or the store's. */
    static final List<String> REASONS = Stream.concat(Arrays.stream(ErrorType.values()).map(ErrorType::code),
            Stream.of(STORE_REFUSED)).toList();

    /** Why a record is refused: the text of its {@code outpost-dlq-reason} header and the metric's reason. */
    record Refusal(String reason, String type) {
    }

    private final Map<TopicPartition, Map<Long, Refusal>> refused = new HashMap<>();
    private final Map<TopicPartition, Map<Long, Boolean>> lettered = new HashMap<>();

    synchronized Refusal refusal(TopicPartition partition, long offset) {
        return refused.getOrDefault(partition, Map.of()).get(offset);
    }

    synchronized void refuse(TopicPartition partition, long offset, Refusal refusal) {
        refused.computeIfAbsent(partition, p -> new HashMap<>()).put(offset, refusal);
    }

    synchronized boolean lettered(TopicPartition partition, long offset) {
        return lettered.getOrDefault(partition, Map.of()).containsKey(offset);
    }

    synchronized void acknowledged(TopicPartition partition, long offset) {
        lettered.computeIfAbsent(partition, p -> new HashMap<>()).put(offset, Boolean.TRUE);
    }

    /** Offsets below {@code next} are committed: nothing about them is needed again. */
    synchronized void committed(TopicPartition partition, long next) {
        forget(refused, partition, next);
        forget(lettered, partition, next);
    }

    /** The partition went to another instance, which starts from the committed offsets. */
    synchronized void revoked(TopicPartition partition) {
        refused.remove(partition);
        lettered.remove(partition);
    }

    private static <V> void forget(Map<TopicPartition, Map<Long, V>> byPartition, TopicPartition partition, long next) {
        Map<Long, V> offsets = byPartition.get(partition);
        if (offsets != null) {
            offsets.keySet().removeIf(offset -> offset < next);
            if (offsets.isEmpty()) {
                byPartition.remove(partition);
            }
        }
    }
}
