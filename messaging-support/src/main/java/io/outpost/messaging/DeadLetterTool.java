package io.outpost.messaging;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.outpost.model.Topics;
import io.outpost.support.kafka.KafkaClientSettings;

/**
 * For the people on call (docs/operations.md): lists the dead letters of a topic, or re-publishes them to the
 * topic they came from once the cause is fixed. Needs only Kafka; runs from any service image or the local
 * stack's {@code ./dead-letters}.
 *
 * <pre>
 * list   TOPIC [--reason TEXT] [--max N]     every letter of TOPIC.dlq: source, reason, key, value (shortened)
 * replay TOPIC [--reason TEXT] [--group G]   re-publishes the letters (key, value, original headers) to TOPIC,
 *                                            each once per consumer group G (default outpost-dlq-replay)
 * </pre>
 *
 * Kafka's address: {@code --bootstrap host:port} or {@code KAFKA_BOOTSTRAP_SERVERS}.
 */
public final class DeadLetterTool {

    private static final Duration QUIET = Duration.ofSeconds(5);

    private DeadLetterTool() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new java.util.HashMap<>();
        List<String> words = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("--") && i + 1 < args.length) {
                options.put(args[i].substring(2), args[++i]);
            } else {
                words.add(args[i]);
            }
        }
        if (words.size() != 2 || !List.of("list", "replay").contains(words.get(0))) {
            System.err.println("usage: list|replay TOPIC [--reason TEXT] [--max N] [--group G] [--bootstrap HOST:PORT]");
            System.exit(2);
        }
        String bootstrap = options.getOrDefault("bootstrap",
                System.getenv().getOrDefault("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:19092"));
        String topic = words.get(1);
        String reason = options.get("reason");
        if (words.get(0).equals("list")) {
            int max = Integer.parseInt(options.getOrDefault("max", "100"));
            int shown = list(bootstrap, topic, reason, max);
            System.out.println(shown + " dead letter(s)" + (reason == null ? "" : " whose reason holds '" + reason + "'"));
        } else {
            int sent = replay(bootstrap, topic, reason, options.getOrDefault("group", "outpost-dlq-replay"));
            System.out.println("re-published " + sent + " dead letter(s) to " + topic);
        }
    }

    /** Prints the letters (from the beginning, without committing anything); answers how many. */
    static int list(String bootstrap, String topic, String reason, int max) {
        int shown = 0;
        try (KafkaConsumer<byte[], byte[]> letters = consumer(bootstrap, "outpost-dlq-list-" + UUID.randomUUID())) {
            letters.subscribe(List.of(Topics.deadLetter(topic)));
            for (ConsumerRecord<byte[], byte[]> letter : drain(letters)) {
                String why = header(letter, Topics.DLQ_REASON_HEADER);
                if (shown < max && (reason == null || String.valueOf(why).contains(reason))) {
                    System.out.printf("%s  %s%n  key: %s%n  value: %s%n", header(letter, DeadLetters.SOURCE_HEADER),
                            why, text(letter.key(), 200), text(letter.value(), 400));
                    shown++;
                }
            }
        }
        return shown;
    }

    /**
     * Sends each letter not yet replayed by {@code group} back to {@code topic} with its key, value and original
     * headers (the dead-letter ones dropped), then commits; answers how many were sent.
     */
    static int replay(String bootstrap, String topic, String reason, String group) {
        int sent = 0;
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.putAll(KafkaClientSettings.configured());
        try (KafkaConsumer<byte[], byte[]> letters = consumer(bootstrap, group);
                KafkaProducer<byte[], byte[]> producer =
                        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            letters.subscribe(List.of(Topics.deadLetter(topic)));
            for (ConsumerRecord<byte[], byte[]> letter : drain(letters)) {
                if (reason != null && !String.valueOf(header(letter, Topics.DLQ_REASON_HEADER)).contains(reason)) {
                    continue;
                }
                ProducerRecord<byte[], byte[]> again = new ProducerRecord<>(topic, letter.key(), letter.value());
                for (Header header : letter.headers()) {
                    if (!header.key().equals(Topics.DLQ_REASON_HEADER) && !header.key().equals(DeadLetters.SOURCE_HEADER)) {
                        again.headers().add(header);
                    }
                }
                producer.send(again);
                sent++;
            }
            producer.flush();
            letters.commitSync();
        }
        return sent;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, String group) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.putAll(KafkaClientSettings.configured());
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Everything the consumer gets until it has been quiet for a few seconds. */
    private static List<ConsumerRecord<byte[], byte[]>> drain(KafkaConsumer<byte[], byte[]> consumer) {
        List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
        long quietSince = System.nanoTime();
        while (System.nanoTime() - quietSince < QUIET.toNanos()) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                all.add(record);
                quietSince = System.nanoTime();
            }
        }
        return all;
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes, int max) {
        if (bytes == null) {
            return "(none)";
        }
        String text = new String(bytes, StandardCharsets.UTF_8).replace("\u0000", "\\u0000");
        return text.length() <= max ? text : text.substring(0, max) + "… (" + bytes.length + " bytes)";
    }
}
