package io.outpost.messaging;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Properties;
import java.util.concurrent.Future;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.outpost.model.Topics;
import io.outpost.support.kafka.KafkaClientSettings;

/**
 * Publishes refused records to {@code <topic>.dlq}: the same key, value and headers, plus why
 * ({@value Topics#DLQ_REASON_HEADER}) and where the record was ({@code outpost-dlq-source}:
 * {@code topic/partition/offset}). Sent with {@code acks=all} and idempotence, so once acknowledged a
 * dead letter is as durable as the record it replaces.
 */
public final class DeadLetters implements AutoCloseable {

    public static final String SOURCE_HEADER = "outpost-dlq-source";
    /** Set when the letter's value was cut to fit: the original value's length in bytes. */
    public static final String TRUNCATED_HEADER = "outpost-dlq-truncated";
    /**
     * The largest letter sent, in bytes (key, value and headers): below Kafka's default limit of 1 MiB per record.
     * A record that fitted its topic may not fit with the reason added; its letter keeps the start of its value
     * rather than being refused by Kafka again and again (which would hold up the partition).
     */
    static final int MAX_LETTER_BYTES = 1_000_000;

    private final KafkaProducer<byte[], byte[]> producer;

    public DeadLetters(String bootstrapServers, String clientId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.putAll(KafkaClientSettings.configured());
        producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Sends the letter; {@code acknowledged} runs once Kafka has it (not when it failed). */
    public Future<RecordMetadata> send(ConsumerRecord<byte[], byte[]> refused, String reason, Runnable acknowledged) {
        byte[] why = reason.getBytes(StandardCharsets.UTF_8);
        byte[] source = (refused.topic() + "/" + refused.partition() + "/" + refused.offset()).getBytes(StandardCharsets.UTF_8);
        int besides = why.length + source.length + 100 + (refused.key() == null ? 0 : refused.key().length);
        for (Header header : refused.headers()) {
            besides += header.key().length() + (header.value() == null ? 0 : header.value().length) + 10;
        }
        byte[] value = refused.value();
        boolean cut = value != null && value.length + besides > MAX_LETTER_BYTES;
        ProducerRecord<byte[], byte[]> letter = new ProducerRecord<>(Topics.deadLetter(refused.topic()), null,
                refused.key(), cut ? Arrays.copyOf(value, Math.max(0, MAX_LETTER_BYTES - besides - 50)) : value);
        for (Header header : refused.headers()) {
            letter.headers().add(header);
        }
        letter.headers().add(Topics.DLQ_REASON_HEADER, why);
        letter.headers().add(SOURCE_HEADER, source);
        if (cut) {
            letter.headers().add(TRUNCATED_HEADER, Integer.toString(value.length).getBytes(StandardCharsets.UTF_8));
        }
        return producer.send(letter, (metadata, failure) -> {
            if (failure == null) {
                acknowledged.run();
            }
        });
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
