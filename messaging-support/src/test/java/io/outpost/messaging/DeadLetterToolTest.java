package io.outpost.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.outpost.model.Topics;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.FreePorts;

/**
 * The on-call tool against the test run's real broker: it reads every letter there is when it starts (however the
 * consumer group's join goes), re-publishes each once per group, and says when Kafka does not answer instead of
 * reporting a count it did not read.
 */
class DeadLetterToolTest {

    private static String bootstrap;
    private static Admin admin;
    private static KafkaProducer<String, String> producer;

    @BeforeAll
    static void connect() {
        bootstrap = BackingServices.shared().kafkaBootstrapServers();
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        admin = Admin.create(props);
        Properties producing = new Properties();
        producing.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        producing.put(ProducerConfig.ACKS_CONFIG, "all");
        producer = new KafkaProducer<>(producing, new StringSerializer(), new StringSerializer());
    }

    @AfterAll
    static void close() {
        producer.close();
        admin.close();
    }

    /** {@code count} letters over the partitions of {@code topic}.dlq, every third with reason "type_a". */
    private static void deadLetter(String topic, int from, int count) throws Exception {
        for (int i = from; i < from + count; i++) {
            ProducerRecord<String, String> letter = new ProducerRecord<>(Topics.deadLetter(topic), i % 3, "key-" + i,
                    "value-" + i);
            letter.headers().add(Topics.DLQ_REASON_HEADER, ("value: " + (i % 3 == 0 ? "type_a" : "type_b"))
                    .getBytes(StandardCharsets.UTF_8));
            letter.headers().add(DeadLetters.SOURCE_HEADER, (topic + "/0@" + i).getBytes(StandardCharsets.UTF_8));
            letter.headers().add("trace", ("t-" + i).getBytes(StandardCharsets.UTF_8));
            producer.send(letter).get(30, TimeUnit.SECONDS);
        }
    }

    private static String newTopics() throws Exception {
        String topic = "dlq-tool-" + UUID.randomUUID();
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1), new NewTopic(Topics.deadLetter(topic), 3, (short) 1)))
                .all().get(30, TimeUnit.SECONDS);
        return topic;
    }

    /** Every record of {@code topic} now, as "key=value trace=… dlq-headers=…". */
    private static List<String> republished(String topic) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        List<String> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            while (consumer.position(partition) < end) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    Header trace = record.headers().lastHeader("trace");
                    boolean dlqHeaders = record.headers().lastHeader(Topics.DLQ_REASON_HEADER) != null
                            || record.headers().lastHeader(DeadLetters.SOURCE_HEADER) != null;
                    seen.add(record.key() + "=" + record.value() + " trace="
                            + new String(trace.value(), StandardCharsets.UTF_8) + (dlqHeaders ? " with dlq headers" : ""));
                }
            }
        }
        return seen;
    }

    @Test
    void listReadsEveryLetterOfEveryPartitionAndCountsThoseOfTheReason() throws Exception {
        String topic = newTopics();
        deadLetter(topic, 0, 30);
        DeadLetterTool tool = new DeadLetterTool(bootstrap, DeadLetterTool.ANSWER);
        assertThat(tool.list(topic, null, 5)).isEqualTo(30);
        assertThat(tool.list(topic, "type_a", 100)).isEqualTo(10);
        assertThat(tool.list(topic, "no such reason", 100)).isZero();
    }

    @Test
    void replaySendsEachLetterOncePerGroupWithItsOwnHeadersOnly() throws Exception {
        String topic = newTopics();
        deadLetter(topic, 0, 12);
        DeadLetterTool tool = new DeadLetterTool(bootstrap, DeadLetterTool.ANSWER);
        String group = "outpost-dlq-test-" + UUID.randomUUID();
        assertThat(tool.replay(topic, "type_a", group)).isEqualTo(4);
        assertThat(republished(topic)).containsExactlyInAnyOrder("key-0=value-0 trace=t-0", "key-3=value-3 trace=t-3",
                "key-6=value-6 trace=t-6", "key-9=value-9 trace=t-9");
        assertThat(tool.replay(topic, null, group)).as("letters passed over by --reason count as done").isZero();
        deadLetter(topic, 12, 3);
        assertThat(tool.replay(topic, null, group)).as("only those that came since").isEqualTo(3);
        assertThat(tool.replay(topic, null, "outpost-dlq-other-" + UUID.randomUUID())).as("another group: all")
                .isEqualTo(15);
        assertThat(republished(topic)).hasSize(4 + 3 + 15).noneMatch(record -> record.endsWith("with dlq headers"));
    }

    @Test
    void aTopicNeverDeadLetteredHasNoLettersAndIsNotCreatedByAsking() throws Exception {
        String topic = "dlq-tool-never-" + UUID.randomUUID();
        DeadLetterTool tool = new DeadLetterTool(bootstrap, DeadLetterTool.ANSWER);
        assertThat(tool.list(topic, null, 10)).isZero();
        assertThat(tool.replay(topic, null, "outpost-dlq-test-" + UUID.randomUUID())).isZero();
        assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).doesNotContain(Topics.deadLetter(topic));
    }

    @Test
    void kafkaThatDoesNotAnswerIsAFailureNotZeroLetters() throws Exception {
        DeadLetterTool tool = new DeadLetterTool("127.0.0.1:" + FreePorts.pick(), Duration.ofSeconds(3));
        assertThatThrownBy(() -> tool.list("player-notifications", null, 10))
                .isInstanceOf(DeadLetterTool.Unfinished.class)
                .hasMessage("Kafka failed while reading the partitions of player-notifications.dlq");
        assertThatThrownBy(() -> tool.replay("player-notifications", null, "outpost-dlq-test"))
                .isInstanceOf(DeadLetterTool.Unfinished.class);
    }
}
