package io.outpost.testsupport;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Produces and reads records on the test run's real Kafka broker, for tests that go through the topics. */
public final class TestKafka implements AutoCloseable {

    /** A record as a test reads it: key, value and headers as text. */
    public record Received(String key, String value, Map<String, String> headers, int partition, long offset) {
    }

    private final String bootstrap;
    private final KafkaProducer<byte[], byte[]> producer;

    public TestKafka() {
        this(BackingServices.shared().kafkaBootstrapServers());
    }

    public TestKafka(String bootstrap) {
        this.bootstrap = bootstrap;
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Sends one record and waits until the broker has it. */
    public void send(String topic, String key, String value) {
        sendRaw(topic, utf8(key), utf8(value));
    }

    /** Sends one record of raw bytes (any of them may be null, or not UTF-8) and returns where it was written. */
    public RecordMetadata sendRaw(String topic, byte[] key, byte[] value) {
        return sent(new ProducerRecord<>(topic, key, value));
    }

    /** Sends one record stamped {@code timestampMillis} by its producer (CreateTime) and waits until the broker has it. */
    public void sendAt(String topic, String key, String value, long timestampMillis) {
        sent(new ProducerRecord<>(topic, null, timestampMillis, utf8(key), utf8(value)));
    }

    private RecordMetadata sent(ProducerRecord<byte[], byte[]> record) {
        try {
            return producer.send(record).get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not send to " + record.topic(), e);
        }
    }

    /** Sends many records without waiting for each, then waits for all. */
    public void sendAll(String topic, List<Map.Entry<String, String>> records) {
        records.forEach(r -> producer.send(new ProducerRecord<>(topic, utf8(r.getKey()), utf8(r.getValue()))));
        producer.flush();
    }

    /**
     * Sends one record without waiting; the future completes when the broker has it. The producer keeps what it
     * cannot deliver yet (broker away) and sends it, once and in order, when the broker is back.
     */
    public Future<RecordMetadata> sendAsync(String topic, String key, String value) {
        return producer.send(new ProducerRecord<>(topic, utf8(key), utf8(value)));
    }

    /** Every record of {@code topic} written before this call (read from the beginning, up to its end offsets). */
    public List<Received> readAll(String topic, Duration timeout) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<Received> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p, timeout) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end within " + timeout);
                }
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    seen.add(new Received(record.key(), record.value(), headers(record), record.partition(),
                            record.offset()));
                }
            }
        }
        return seen;
    }

    private static byte[] utf8(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Reads {@code topic} from the beginning with a fresh consumer group until {@code count} records matching
     * {@code keyFilter} (null: any) are seen or {@code timeout} passes; returns what it saw.
     */
    public List<Received> read(String topic, String keyFilter, int count, Duration timeout) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "test-reader-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<Received> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (seen.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    if (keyFilter == null || keyFilter.equals(record.key())) {
                        seen.add(new Received(record.key(), record.value(), headers(record), record.partition(),
                                record.offset()));
                    }
                }
            }
        }
        return seen;
    }

    private static Map<String, String> headers(ConsumerRecord<String, String> record) {
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        for (Header header : record.headers()) {
            headers.put(header.key(), header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8));
        }
        return headers;
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
