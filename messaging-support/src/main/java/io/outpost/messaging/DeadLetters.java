package io.outpost.messaging;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
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
     * Set when the letter's key or some of the record's headers were cut to fit: what was cut, e.g.
     * {@code key 70000 bytes to 16384; headers 3 of 5 dropped (1100000 bytes): a, b, c}.
     */
    public static final String CUT_HEADER = "outpost-dlq-cut";
    /**
     * The largest letter sent, in bytes (key, value and headers, with Kafka's own framing): below Kafka's default
     * limit of 1 MiB per record, the producer's {@code max.request.size} and the broker's {@code message.max.bytes}
     * alike. A record that fitted its topic may not fit with the reason added; its letter keeps the start of its
     * value, and its key and headers only within their bounds below, rather than being refused by Kafka again and
     * again (which would hold up the partition). A letter the broker still refuses (a dead-letter topic configured
     * smaller) is skipped: {@link #isTooLarge}.
     */
    static final int MAX_LETTER_BYTES = 1_000_000;
    /** The most of the record's key a letter keeps (keys here are uuids: only a hostile record comes near it). */
    static final int MAX_KEY_BYTES = 16_384;
    /** The most bytes of the record's own headers a letter keeps; headers past it are dropped, in order. */
    static final int MAX_HEADER_BYTES = 256 * 1024;
    /** The most of the reason a letter carries. */
    static final int MAX_REASON_BYTES = 8_192;
    /** Kafka's framing per record and per header, counted generously (varints at their widest, the batch header). */
    private static final int RECORD_OVERHEAD = 128;
    private static final int HEADER_OVERHEAD = 10;

    /** How long a letter Kafka refuses as too large is retried before its record is skipped, by default. */
    public static final Duration TOO_LARGE_GIVE_UP = Duration.ofSeconds(60);
    /** Records whose letters are being refused as too large, remembered at most (a flood starts the count anew). */
    private static final int TOO_LARGE_REMEMBERED = 10_000;

    private final KafkaProducer<byte[], byte[]> producer;
    private final int maxLetterBytes;
    private final long giveUpNanos;
    /** Where each record refused as too large was first refused (topic/partition/offset → System.nanoTime()). */
    private final Map<String, Long> refusedTooLarge = new ConcurrentHashMap<>();

    public DeadLetters(String bootstrapServers, String clientId) {
        this(bootstrapServers, clientId, TOO_LARGE_GIVE_UP);
    }

    public DeadLetters(String bootstrapServers, String clientId, Duration tooLargeGiveUp) {
        giveUpNanos = tooLargeGiveUp.toNanos();
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.putAll(KafkaClientSettings.configured());
        Object requestSize = props.get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        // a producer configured smaller than the default takes its own limit, less what a request adds around a batch
        maxLetterBytes = requestSize == null ? MAX_LETTER_BYTES
                : Math.max(4_096, Math.min(MAX_LETTER_BYTES, Integer.parseInt(requestSize.toString()) - 1_024));
        producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * Whether the letter of {@code refused}, just refused as too large, has been refused so for longer than the
     * give-up time: then its record is skipped; until then the batch is retried, so that a dead-letter topic whose
     * {@code max.message.bytes} is set below the letter's bound can be corrected without losing the letter.
     */
    boolean givenUpAsTooLarge(ConsumerRecord<byte[], byte[]> refused) {
        String where = refused.topic() + "/" + refused.partition() + "/" + refused.offset();
        if (refusedTooLarge.size() >= TOO_LARGE_REMEMBERED) {
            refusedTooLarge.clear();
        }
        long first = refusedTooLarge.computeIfAbsent(where, w -> System.nanoTime());
        if (System.nanoTime() - first >= giveUpNanos) {
            refusedTooLarge.remove(where);
            return true;
        }
        return false;
    }

    /** Sends the letter; {@code acknowledged} runs once Kafka has it (not when it failed). */
    public Future<RecordMetadata> send(ConsumerRecord<byte[], byte[]> refused, String reason, Runnable acknowledged) {
        return producer.send(letter(refused, reason, maxLetterBytes), (metadata, failure) -> {
            if (failure == null) {
                if (!refusedTooLarge.isEmpty()) {
                    refusedTooLarge.remove(refused.topic() + "/" + refused.partition() + "/" + refused.offset());
                }
                acknowledged.run();
            }
        });
    }

    /** The letter for {@code refused}: at most {@code maxBytes}, whatever the record's key and headers held. */
    static ProducerRecord<byte[], byte[]> letter(ConsumerRecord<byte[], byte[]> refused, String reason, int maxBytes) {
        byte[] why = prefix(reason, MAX_REASON_BYTES).getBytes(StandardCharsets.UTF_8);
        byte[] source = (refused.topic() + "/" + refused.partition() + "/" + refused.offset()).getBytes(StandardCharsets.UTF_8);
        List<String> cuts = new ArrayList<>();
        byte[] key = refused.key();
        if (key != null && key.length > MAX_KEY_BYTES) {
            cuts.add("key " + key.length + " bytes to " + MAX_KEY_BYTES);
            key = Arrays.copyOf(key, MAX_KEY_BYTES);
        }
        List<Header> kept = new ArrayList<>();
        List<String> dropped = new ArrayList<>();
        int headerBytes = 0;
        int droppedBytes = 0;
        int headerCount = 0;
        for (Header header : refused.headers()) {
            headerCount++;
            int size = headerSize(header.key(), header.value());
            if (dropped.isEmpty() && headerBytes + size <= MAX_HEADER_BYTES) {
                kept.add(header);
                headerBytes += size;
            } else {
                dropped.add(header.key());
                droppedBytes += size;
            }
        }
        if (!dropped.isEmpty()) {
            String names = String.join(", ", dropped);
            cuts.add("headers " + dropped.size() + " of " + headerCount + " dropped (" + droppedBytes + " bytes): "
                    + prefix(names, 1_024));
        }
        byte[] cut = cuts.isEmpty() ? null : String.join("; ", cuts).getBytes(StandardCharsets.UTF_8);
        int besides = RECORD_OVERHEAD + (key == null ? 0 : key.length) + headerBytes
                + headerSize(Topics.DLQ_REASON_HEADER, why) + headerSize(SOURCE_HEADER, source)
                + headerSize(TRUNCATED_HEADER, new byte[11]) + (cut == null ? 0 : headerSize(CUT_HEADER, cut));
        byte[] value = refused.value();
        boolean valueCut = value != null && value.length + besides > maxBytes;
        ProducerRecord<byte[], byte[]> letter = new ProducerRecord<>(Topics.deadLetter(refused.topic()), null, key,
                valueCut ? Arrays.copyOf(value, Math.max(0, maxBytes - besides)) : value);
        kept.forEach(letter.headers()::add);
        letter.headers().add(Topics.DLQ_REASON_HEADER, why);
        letter.headers().add(SOURCE_HEADER, source);
        if (valueCut) {
            letter.headers().add(TRUNCATED_HEADER, Integer.toString(value.length).getBytes(StandardCharsets.UTF_8));
        }
        if (cut != null) {
            letter.headers().add(CUT_HEADER, cut);
        }
        return letter;
    }

    /** The longest start of {@code text} of at most {@code maxBytes} in UTF-8, cut between characters. */
    private static String prefix(String text, int maxBytes) {
        if (text.length() * 3 <= maxBytes) {
            return text;
        }
        int bytes = 0;
        int i = 0;
        while (i < text.length()) {
            int c = text.codePointAt(i);
            int size = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
            if (bytes + size > maxBytes) {
                return text.substring(0, i);
            }
            bytes += size;
            i += Character.charCount(c);
        }
        return text;
    }

    private static int headerSize(String key, byte[] value) {
        return HEADER_OVERHEAD + key.getBytes(StandardCharsets.UTF_8).length + (value == null ? 0 : value.length);
    }

    /**
     * Whether a letter failed because Kafka will never take it, however often it is sent (the dead-letter topic's
     * {@code max.message.bytes} set below the letter's bound): such a letter is skipped, not retried.
     */
    static boolean isTooLarge(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof RecordTooLargeException || t instanceof RecordBatchTooLargeException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
