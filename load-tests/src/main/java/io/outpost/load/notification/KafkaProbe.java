package io.outpost.load.notification;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

import io.outpost.model.Topics;

/**
 * A plain consumer of its own group on the same topic: produce → consume latency, the share of the delivery
 * latency that Kafka itself accounts for on this machine.
 */
final class KafkaProbe implements AutoCloseable {

    private final Recorder latency = new Recorder(3);
    private final Thread thread;
    private volatile boolean running = true;

    KafkaProbe(String bootstrap) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-probe-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        thread = new Thread(() -> {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                    new StringDeserializer())) {
                consumer.subscribe(List.of(Topics.PLAYER_NOTIFICATIONS));
                while (running) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        long now = System.nanoTime();
                        String v = r.value();
                        int at = v.indexOf("\"message\":\"") + 11;
                        String sent = v.substring(at, v.indexOf('"', at));
                        if (!sent.isEmpty() && Character.isDigit(sent.charAt(0))) {
                            latency.recordValue(Math.max(0, (now - Long.parseLong(sent)) / 1000));
                        }
                    }
                }
            }
        }, "kafka-probe");
        thread.setDaemon(true);
        thread.start();
    }

    Histogram latencies() {
        return latency.getIntervalHistogram();
    }

    @Override
    public void close() {
        running = false;
    }
}
