package io.outpost.messaging;

/** One valid event taken from a topic, with the record it came from (stable across re-deliveries). */
public record Consumed<E>(String key, E event, String topic, int partition, long offset, long timestamp) {
}
