package io.outpost.messaging;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
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
 * list   TOPIC [--reason TEXT] [--max N]     the letters of TOPIC.dlq: source, reason, key, value (shortened)
 * replay TOPIC [--reason TEXT] [--group G]   re-publishes the letters (key, value, original headers) to TOPIC,
 *                                            each once per consumer group G (default outpost-dlq-replay)
 * </pre>
 *
 * Kafka's address: {@code --bootstrap host:port} or {@code KAFKA_BOOTSTRAP_SERVERS}. Each reads the letters there
 * are when it starts, to the last, one at a time (memory does not grow with the topic), and needs no consumer group
 * to list. When Kafka does not answer a request within {@code --timeout} seconds (default 30), or refuses one, it
 * says so and exits 1: it never reports a count it did not finish reading.
 */
public final class DeadLetterTool {

    /** How long Kafka may take to answer one request (metadata, offsets, a poll that brings nothing), by default. */
    static final Duration ANSWER = Duration.ofSeconds(30);

    private final String bootstrap;
    private final Duration answer;

    DeadLetterTool(String bootstrap, Duration answer) {
        this.bootstrap = bootstrap;
        this.answer = answer;
    }

    /** Kafka did not answer, or refused: the tool says so and exits 1 rather than report a count it did not read. */
    static final class Unfinished extends RuntimeException {
        Unfinished(String message, Throwable cause) {
            super(message, cause);
        }
    }

    public static void main(String[] args) {
        Map<String, String> options = new HashMap<>();
        List<String> words = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("--") && i + 1 < args.length) {
                options.put(args[i].substring(2), args[++i]);
            } else {
                words.add(args[i]);
            }
        }
        if (words.size() != 2 || !List.of("list", "replay").contains(words.get(0))) {
            System.err.println("usage: list|replay TOPIC [--reason TEXT] [--max N] [--group G] [--bootstrap HOST:PORT]"
                    + " [--timeout SECONDS]");
            System.exit(2);
        }
        String bootstrap = options.getOrDefault("bootstrap",
                System.getenv().getOrDefault("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:19092"));
        String topic = words.get(1);
        String reason = options.get("reason");
        DeadLetterTool tool = new DeadLetterTool(bootstrap, options.containsKey("timeout")
                ? Duration.ofSeconds(Long.parseLong(options.get("timeout"))) : ANSWER);
        try {
            if (words.get(0).equals("list")) {
                int max = Integer.parseInt(options.getOrDefault("max", "100"));
                int matched = tool.list(topic, reason, max);
                System.out.println(matched + " dead letter(s)" + (reason == null ? "" : " whose reason holds '" + reason + "'")
                        + (matched > max ? ", the first " + max + " shown" : ""));
            } else {
                int sent = tool.replay(topic, reason, options.getOrDefault("group", "outpost-dlq-replay"));
                System.out.println("re-published " + sent + " dead letter(s) to " + topic);
            }
        } catch (Unfinished e) {
            System.err.println(e.getMessage() + (e.getCause() == null ? "" : ": " + e.getCause()));
            System.exit(1);
        }
    }

    /**
     * Prints the letters of {@code TOPIC.dlq} there are when it starts, from the first, whose reason holds
     * {@code reason} (any when null), the first {@code max} of them; answers how many matched. Joins no consumer
     * group and commits nothing.
     */
    int list(String topic, String reason, int max) {
        int[] matched = { 0 };
        try (KafkaConsumer<byte[], byte[]> letters = consumer(null)) {
            Map<TopicPartition, Long> start = new HashMap<>();
            for (TopicPartition partition : partitions(letters, topic)) {
                start.put(partition, null);
            }
            readToEnd(letters, start, letter -> {
                String why = header(letter, Topics.DLQ_REASON_HEADER);
                if (reason == null || String.valueOf(why).contains(reason)) {
                    if (matched[0] < max) {
                        System.out.printf("%s  %s%n  key: %s%n  value: %s%n", header(letter, DeadLetters.SOURCE_HEADER),
                                why, text(letter.key(), 200), text(letter.value(), 400));
                    }
                    matched[0]++;
                }
            });
        }
        return matched[0];
    }

    /**
     * Sends each letter of {@code TOPIC.dlq} not yet replayed by consumer group {@code group} — up to the last there is
     * when it starts — back to {@code topic} with its key, value and original headers (the dead-letter ones dropped),
     * then commits for {@code group}, per partition, past the letters Kafka acknowledged (and those {@code reason}
     * passed over before them); answers how many were sent. When a send fails, what was acknowledged before it is
     * committed and it fails: running it again sends the rest, none twice.
     */
    int replay(String topic, String reason, String group) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) answer.toMillis());
        props.putAll(KafkaClientSettings.configured());
        try (KafkaConsumer<byte[], byte[]> letters = consumer(group);
                KafkaProducer<byte[], byte[]> producer =
                        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            Map<TopicPartition, Long> start = new HashMap<>();
            Set<TopicPartition> partitions = partitions(letters, topic);
            Map<TopicPartition, OffsetAndMetadata> committed = answered(() -> letters.committed(partitions, answer),
                    "reading the offsets of group " + group);
            for (TopicPartition partition : partitions) {
                OffsetAndMetadata offset = committed.get(partition);
                start.put(partition, offset == null ? null : offset.offset());
            }
            // per partition, in order: the letter's offset and its send (null when passed over)
            Map<TopicPartition, List<Map.Entry<Long, Future<RecordMetadata>>>> sends = new HashMap<>();
            readToEnd(letters, start, letter -> {
                Future<RecordMetadata> send = null;
                if (reason == null || String.valueOf(header(letter, Topics.DLQ_REASON_HEADER)).contains(reason)) {
                    ProducerRecord<byte[], byte[]> again = new ProducerRecord<>(topic, letter.key(), letter.value());
                    for (Header header : letter.headers()) {
                        if (!header.key().equals(Topics.DLQ_REASON_HEADER)
                                && !header.key().equals(DeadLetters.SOURCE_HEADER)) {
                            again.headers().add(header);
                        }
                    }
                    send = producer.send(again);
                }
                sends.computeIfAbsent(new TopicPartition(letter.topic(), letter.partition()), p -> new ArrayList<>())
                        .add(new AbstractMap.SimpleEntry<>(letter.offset(), send));
            });
            producer.flush();
            return commitAcknowledged(letters, sends, topic);
        }
    }

    /** Commits past each partition's acknowledged prefix; answers the letters sent, or fails on the first refused. */
    private int commitAcknowledged(KafkaConsumer<byte[], byte[]> letters,
            Map<TopicPartition, List<Map.Entry<Long, Future<RecordMetadata>>>> sends, String topic) {
        int sent = 0;
        Unfinished failed = null;
        Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
        for (var partition : sends.entrySet()) {
            for (Map.Entry<Long, Future<RecordMetadata>> letter : partition.getValue()) {
                if (letter.getValue() != null) {
                    try {
                        letter.getValue().get();
                        sent++;
                    } catch (InterruptedException | ExecutionException e) {
                        failed = new Unfinished("could not re-publish a letter of " + partition.getKey() + " at offset "
                                + letter.getKey() + " to " + topic + "; those before it are committed", e);
                        break;
                    }
                }
                done.put(partition.getKey(), new OffsetAndMetadata(letter.getKey() + 1));
            }
        }
        if (!done.isEmpty()) {
            answered(() -> {
                letters.commitSync(done, answer);
                return null;
            }, "committing the replayed letters (they were sent; a replay now would send them again)");
        }
        if (failed != null) {
            throw failed;
        }
        return sent;
    }

    /** The partitions of {@code TOPIC.dlq}; none when it does not exist (nothing was ever dead-lettered). */
    private Set<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        String dlq = Topics.deadLetter(topic);
        List<PartitionInfo> infos = answered(() -> consumer.partitionsFor(dlq, answer), "reading the partitions of " + dlq);
        Set<TopicPartition> partitions = new HashSet<>();
        for (PartitionInfo info : infos == null ? List.<PartitionInfo>of() : infos) {
            partitions.add(new TopicPartition(info.topic(), info.partition()));
        }
        return partitions;
    }

    /**
     * Hands each record of the partitions in {@code start} (from its offset; from the first when null) to
     * {@code each}, up to the end each partition has now: letters that come later wait for the next run.
     */
    private void readToEnd(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> start,
            Consumer<ConsumerRecord<byte[], byte[]>> each) {
        if (start.isEmpty()) {
            return;
        }
        consumer.assign(start.keySet());
        Map<TopicPartition, Long> end = answered(() -> consumer.endOffsets(start.keySet(), answer),
                "reading where the letters end");
        Map<TopicPartition, Long> first = answered(() -> consumer.beginningOffsets(start.keySet(), answer),
                "reading where the letters begin");
        Set<TopicPartition> open = new HashSet<>();
        for (TopicPartition partition : start.keySet()) {
            Long from = start.get(partition);
            long position = from == null ? first.get(partition) : Math.max(from, first.get(partition));
            consumer.seek(partition, position);
            if (position < end.get(partition)) {
                open.add(partition);
            }
        }
        long quietSince = System.nanoTime();
        while (!open.isEmpty()) {
            ConsumerRecords<byte[], byte[]> records = answered(() -> consumer.poll(Duration.ofMillis(500)), "reading");
            if (records.isEmpty()) {
                if (System.nanoTime() - quietSince > answer.toNanos()) {
                    throw new Unfinished("Kafka sent no letter for " + answer.toSeconds() + " s before the end of "
                            + open, null);
                }
                continue;
            }
            quietSince = System.nanoTime();
            for (ConsumerRecord<byte[], byte[]> record : records) {
                TopicPartition partition = new TopicPartition(record.topic(), record.partition());
                if (open.contains(partition) && record.offset() < end.get(partition)) {
                    each.accept(record);
                }
            }
            for (TopicPartition partition : Set.copyOf(open)) {
                if (consumer.position(partition, answer) >= end.get(partition)) {
                    open.remove(partition);
                    consumer.pause(Set.of(partition));
                }
            }
        }
    }

    /** {@code call}'s answer; a Kafka failure (an unreachable broker's timeout included) as {@link Unfinished}. */
    private static <T> T answered(Supplier<T> call, String doing) {
        try {
            return call.get();
        } catch (KafkaException e) {
            throw new Unfinished("Kafka failed while " + doing, e);
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer(String group) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        if (group != null) {
            props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false); // asking for a .dlq topic must not create it
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) answer.toMillis());
        props.putAll(KafkaClientSettings.configured());
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
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
