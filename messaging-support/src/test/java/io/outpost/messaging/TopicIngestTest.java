package io.outpost.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.outpost.model.Topics;
import io.outpost.model.error.ErrorDetail;
import io.outpost.model.event.NotificationEvent;
import io.outpost.support.store.StoreFault;
import io.outpost.support.store.StoreUnavailableException;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.OutpostTestResource;
import io.outpost.testsupport.TestKafka;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * TopicIngest against the real broker and a real PostgreSQL table: valid events stored once and in order,
 * refused ones dead-lettered with their reason (also those only the database refuses), healable failures
 * retried, and nothing committed past a dead letter Kafka has not acknowledged.
 */
@QuarkusTest
@WithTestResource(value = OutpostTestResource.class, scope = TestResourceScope.GLOBAL)
class TopicIngestTest {

    private static final String PLAYER = "0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a";
    /** Stored rows; the database refuses a message holding "refuse" (SQLSTATE 23514) or one too long (22001). */
    private static final String TABLE = """
            CREATE TABLE IF NOT EXISTS public.ingest_test (
                topic text, source text, message varchar(20) NOT NULL CHECK (message NOT LIKE '%refuse%'),
                seq bigserial, PRIMARY KEY (topic, source))""";
    private static final String INSERT = """
            INSERT INTO %s (topic, source, message)
            SELECT $1, s, m FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS r(s, m, ord) ORDER BY ord
            ON CONFLICT DO NOTHING""";

    @Inject
    ObjectMapper mapper;

    @Inject
    Pool pool;

    @Inject
    MeterRegistry meters;

    private final TestKafka kafka = new TestKafka();
    /** The table the store writes to. */
    private volatile String table = "public.ingest_test";
    /** How many more store calls fail with a serialization failure raised by PostgreSQL itself. */
    private final AtomicInteger healableFailuresLeft = new AtomicInteger();
    private final List<TopicIngest<NotificationEvent>> started = new ArrayList<>();

    @BeforeEach
    void table() {
        pool.query(TABLE).execute().await().atMost(Duration.ofSeconds(30));
    }

    @AfterEach
    void stop() {
        started.forEach(TopicIngest::close);
        kafka.close();
    }

    /** How long the next ingest started retries a letter refused as too large (a test may shorten it). */
    private Duration tooLargeLetterGiveUp = DeadLetters.TOO_LARGE_GIVE_UP;

    private TopicIngest<NotificationEvent> ingest(String topic, String group) {
        return ingest(topic, group, batch -> store(topic, batch), Duration.ofSeconds(30));
    }

    private TopicIngest<NotificationEvent> ingest(String topic, String group, BatchStore<NotificationEvent> store,
            Duration storeTimeout) {
        return ingest(topic, group, store, storeTimeout, 1);
    }

    private TopicIngest<NotificationEvent> ingest(String topic, String group, BatchStore<NotificationEvent> store,
            Duration storeTimeout, int storesInFlight) {
        TopicIngest<NotificationEvent> ingest = TopicIngest.builder(topic, NotificationEvent.class)
                .bootstrapServers(BackingServices.shared().kafkaBootstrapServers())
                .groupId(group)
                .mapper(mapper)
                .meters(meters)
                .validator((key, event) -> {
                    List<ErrorDetail> faults = new ArrayList<>(event.validate(ErrorDetail.loc("value")));
                    RecordKeys.requireCanonical(faults, key, event.playerUuid());
                    return faults;
                })
                .store(store)
                .storeTimeout(storeTimeout)
                .storesInFlight(storesInFlight)
                .tooLargeLetterGiveUp(tooLargeLetterGiveUp)
                .build().start();
        started.add(ingest);
        return ingest;
    }

    private Uni<Void> store(String topic, List<Consumed<NotificationEvent>> batch) {
        if (healableFailuresLeft.getAndDecrement() > 0) {
            return pool.query("DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$").execute()
                    .replaceWithVoid();
        }
        String[] sources = batch.stream().map(c -> c.partition() + "/" + c.offset()).toArray(String[]::new);
        String[] messages = batch.stream().map(c -> c.event().message()).toArray(String[]::new);
        return pool.preparedQuery(INSERT.formatted(table)).execute(Tuple.of(topic, sources, messages)).replaceWithVoid();
    }

    private List<String> stored(String topic) {
        List<String> messages = new ArrayList<>();
        for (Row row : pool.preparedQuery("SELECT message FROM " + table + " WHERE topic = $1 ORDER BY seq")
                .execute(Tuple.of(topic)).await().atMost(Duration.ofSeconds(30))) {
            messages.add(row.getString("message"));
        }
        return messages;
    }

    private double count(String name, String topic, String reason) {
        Counter counter = meters.find(name).tag("topic", topic).tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }

    private static String topic() {
        return "ingest-test-" + UUID.randomUUID();
    }

    private static String event(String message) {
        return event(PLAYER, message);
    }

    private static String event(String player, String message) {
        return "{\"player_uuid\":\"" + player + "\",\"message\":\"" + message + "\"}";
    }

    /** A player whose records the default partitioner puts on another partition than PLAYER's, of {@code partitions}. */
    private static String playerOnAnotherPartition(int partitions) {
        while (true) {
            String player = UUID.randomUUID().toString();
            if (partition(player, partitions) != partition(PLAYER, partitions)) {
                return player;
            }
        }
    }

    private static int partition(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    /** Each store call's messages, in the order the calls began. */
    private static List<String> messages(List<Consumed<NotificationEvent>> batch) {
        return batch.stream().map(c -> c.event().message()).toList();
    }

    @Test
    void storesValidEventsInOrderAndDeadLettersEachRefusedOneWithItsReason() {
        String topic = topic();
        TopicIngest<NotificationEvent> ingest = ingest(topic, "g-" + topic);
        kafka.send(topic, PLAYER, event("one"));
        kafka.send(topic, PLAYER, "{not json");
        kafka.send(topic, PLAYER, event("x".repeat(4097)));
        kafka.send(topic, PLAYER, "{\"player_uuid\":\"" + PLAYER + "\",\"message\":\"m\",\"custom_data\":[1]}");
        kafka.send(topic, PLAYER.toUpperCase(), event("key spelled otherwise"));
        kafka.send(topic, PLAYER, event("two"));

        await().atMost(Duration.ofSeconds(30)).until(() -> stored(topic).size() == 2 && ingest.deadLetteredCount() == 4);
        assertThat(stored(topic)).containsExactly("one", "two");

        List<TestKafka.Received> letters = kafka.read(Topics.deadLetter(topic), null, 4, Duration.ofSeconds(30));
        // letters keep their keys, so those of different keys may sit on different partitions: any order
        assertThat(letters).extracting(r -> r.headers().get(Topics.DLQ_REASON_HEADER)).containsExactlyInAnyOrder(
                "value: JSON decode error [json_invalid]",
                "value.message: String should have at most 4096 characters [string_too_long]",
                "value.custom_data: Input should be a valid dictionary [json_invalid]",
                "key: Input should be '" + PLAYER + "' [literal_error]");
        TestKafka.Received unparsable = letters.stream().filter(r -> r.value().equals("{not json")).findFirst()
                .orElseThrow();
        assertThat(unparsable.key()).isEqualTo(PLAYER);
        assertThat(unparsable.headers().get(DeadLetters.SOURCE_HEADER)).matches(topic + "/[0-3]/1");
        assertThat(count("outpost.ingest.records.dead.lettered", topic, "json_invalid")).isEqualTo(2);
        assertThat(meters.find("outpost.ingest.records.stored").tag("topic", topic).counter().count()).isEqualTo(2);
    }

    @Test
    void recordsTheStoreRefusesAreFoundDeadLetteredWithItsReasonAndTheRestStoredInOrder() {
        String topic = topic();
        TopicIngest<NotificationEvent> ingest = ingest(topic, "g-" + topic);
        List<Map.Entry<String, String>> records = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String message = i % 13 == 5 ? "refuse-" + i : i == 22 ? "longer than the table allows " + i : "ok-" + i;
            records.add(Map.entry(PLAYER, event(message)));
            if (message.startsWith("ok")) {
                expected.add(message);
            }
        }
        kafka.sendAll(topic, records);

        await().atMost(Duration.ofSeconds(30)).until(() -> ingest.deadLetteredCount() == 4 && ingest.lastFailure() == null
                && stored(topic).size() == expected.size());
        assertThat(stored(topic)).containsExactlyElementsOf(expected);
        List<TestKafka.Received> letters = kafka.read(Topics.deadLetter(topic), null, 4, Duration.ofSeconds(30));
        assertThat(letters).extracting(TestKafka.Received::value).containsExactly(event("refuse-5"),
                event("refuse-18"), event("longer than the table allows 22"), event("refuse-31"));
        assertThat(letters.get(0).headers().get(Topics.DLQ_REASON_HEADER)).startsWith("value: the store refused it: ")
                .contains("ingest_test_message_check").endsWith("(SQLSTATE 23514) [store_refused]");
        assertThat(letters.get(2).headers().get(Topics.DLQ_REASON_HEADER)).contains("(SQLSTATE 22001)");
        assertThat(count("outpost.ingest.records.dead.lettered", topic, "store_refused")).isEqualTo(4);
        assertThat(count("outpost.ingest.batches.retried", topic, "other")).isZero();
    }

    /**
     * With stores in flight, a batch of other keys is stored beside one still being stored, and a batch sharing a key
     * with one in flight waits for it even with room beside it (three may be in flight here): a key's records are
     * stored in their order.
     */
    @Test
    void aBatchOfOtherKeysIsStoredBesideOneInFlightAndOneSharingAKeyWaitsForIt() {
        String topic = topic();
        String other = UUID.randomUUID().toString();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        List<List<String>> calls = new CopyOnWriteArrayList<>();
        TopicIngest<NotificationEvent> ingest = ingest(topic, "g-" + topic, batch -> {
            calls.add(messages(batch));
            Uni<Void> held = messages(batch).contains("a1") ? Uni.createFrom().completionStage(gate) : Uni.createFrom().voidItem();
            return held.chain(() -> store(topic, batch));
        }, Duration.ofSeconds(30), 3);

        kafka.send(topic, PLAYER, event("a1"));
        await().atMost(Duration.ofSeconds(30)).until(() -> calls.equals(List.of(List.of("a1"))));
        kafka.send(topic, other, event(other, "b1"));
        await().atMost(Duration.ofSeconds(30)).until(() -> stored(topic).equals(List.of("b1")));
        kafka.send(topic, PLAYER, event("a2"));
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
                .until(() -> calls.stream().noneMatch(call -> call.contains("a2")));

        gate.complete(null);
        await().atMost(Duration.ofSeconds(30)).until(() -> ingest.storedCount() == 3);
        assertThat(stored(topic)).containsExactly("b1", "a1", "a2");
        assertThat(calls).containsExactly(List.of("a1"), List.of("b1"), List.of("a2"));
        assertThat(meters.find("outpost.ingest.batches.stored.beside").tag("topic", topic).counter().count())
                .as("batches given to the store beside another").isEqualTo(1);
    }

    /**
     * Each record is timed from its timestamp until it was consumed and until its batch was stored, and each batch's
     * store is timed: a record read again after a failed store is timed again when consumed, a failed store counts
     * in neither of the others, and a record stamped ahead of this clock is not timed.
     */
    @Test
    void recordsAreTimedFromTheirTimestampAndBatchesInTheStore() {
        String topic = topic();
        healableFailuresLeft.set(1);
        TopicIngest<NotificationEvent> ingest = ingest(topic, "g-" + topic, batch -> Uni.createFrom().voidItem()
                .onItem().delayIt().by(Duration.ofMillis(300)).chain(() -> store(topic, batch)), Duration.ofSeconds(30));
        long start = System.currentTimeMillis();
        kafka.sendAt(topic, PLAYER, event("ten seconds old"), start - 10_000);
        await().atMost(Duration.ofSeconds(30)).until(() -> ingest.storedCount() == 1);
        kafka.sendAt(topic, PLAYER, event("stamped ahead"), start + 600_000);
        await().atMost(Duration.ofSeconds(30)).until(() -> ingest.storedCount() == 2);
        kafka.send(topic, PLAYER, event("fresh"));
        await().atMost(Duration.ofSeconds(30)).until(() -> ingest.storedCount() == 3);
        long elapsed = System.currentTimeMillis() - start;
        assertThat(stored(topic)).containsExactly("ten seconds old", "stamped ahead", "fresh");

        Timer consumed = meters.find("outpost.ingest.record.delay").tag("topic", topic).tag("stage", "consumed").timer();
        Timer storedDelay = meters.find("outpost.ingest.record.delay").tag("topic", topic).tag("stage", "stored").timer();
        Timer batches = meters.find("outpost.ingest.batch.store").tag("topic", topic).timer();
        assertThat(consumed.count()).as("the old record twice (read again after the failure), the fresh one once")
                .isEqualTo(3);
        assertThat(consumed.max(TimeUnit.MILLISECONDS)).isBetween(10_000.0, 10_000.0 + elapsed);
        assertThat(storedDelay.count()).as("the old and the fresh record, each once").isEqualTo(2);
        assertThat(storedDelay.max(TimeUnit.MILLISECONDS)).as("the old record").isBetween(10_300.0, 10_000.0 + elapsed);
        assertThat(storedDelay.totalTime(TimeUnit.MILLISECONDS) - storedDelay.max(TimeUnit.MILLISECONDS))
                .as("the fresh record: at least its store's 300 ms").isBetween(300.0, (double) elapsed);
        assertThat(batches.count()).as("three batches went through; the failed store is not counted").isEqualTo(3);
        assertThat(batches.totalTime(TimeUnit.MILLISECONDS)).isBetween(900.0, (double) elapsed);
    }

    /**
     * Records arriving one by one make a batch each: their offsets are committed together, at most once per
     * {@link OffsetCommits#INTERVAL} (not once per batch), and all of them soon after the ingest has caught up.
     */
    @Test
    void whileRecordsKeepComingTheirOffsetsAreCommittedTogetherNotOncePerBatch() throws Exception {
        String topic = topic();
        String group = "g-" + topic;
        int records = 60;
        long elapsedMillis;
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            TopicIngest<NotificationEvent> ingest = ingest(topic, group, batch -> Uni.createFrom().voidItem()
                    .onItem().delayIt().by(Duration.ofMillis(5)).chain(() -> store(topic, batch)),
                    Duration.ofSeconds(30));
            long start = System.nanoTime();
            for (int i = 0; i < records; i++) {
                kafka.send(topic, PLAYER, event("m" + i));
                Thread.sleep(25);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> ingest.storedCount() == records);
            elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            await().atMost(Duration.ofSeconds(10)).until(() -> committed(admin, group, topic) == records);
        }
        assertThat(stored(topic)).hasSize(records).startsWith("m0", "m1").endsWith("m" + (records - 1));

        long batches = meters.find("outpost.ingest.batch.store").tag("topic", topic).timer().count();
        double commits = meters.find("outpost.ingest.commits").tag("topic", topic).counter().count();
        assertThat(batches).as("records sent 25 ms apart, each stored in a few ms").isGreaterThanOrEqualTo(records / 2);
        assertThat(commits).as("one commit per %d ms at most over %d ms, the last one after",
                OffsetCommits.INTERVAL.toMillis(), elapsedMillis)
                .isBetween(1.0, (double) elapsedMillis / OffsetCommits.INTERVAL.toMillis() + 2);
    }

    /**
     * When the oldest of two batches in flight fails, the later one is not committed either: both are read again
     * from their first offsets, so the later one is stored even when it failed too.
     */
    @Test
    void whenTheOldestOfTwoBatchesInFlightFailsTheLaterOneIsReadAgainToo() throws Exception {
        String topic = topic();
        String group = "g-" + topic;
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        String other = playerOnAnotherPartition(2);
        CompletableFuture<Void> laterFailed = new CompletableFuture<>();
        AtomicInteger failuresLeft = new AtomicInteger(2);
        List<List<String>> calls = new CopyOnWriteArrayList<>();
        TopicIngest<NotificationEvent> ingest = ingest(topic, group, batch -> {
            calls.add(messages(batch));
            if (failuresLeft.getAndDecrement() <= 0) {
                return store(topic, batch);
            }
            Uni<Void> failure = Uni.createFrom().failure(new StoreUnavailableException(StoreFault.SERIALIZATION,
                    "test: a serialization failure", null));
            if (messages(batch).contains("a1")) { // the oldest fails once the later one has failed
                return Uni.createFrom().completionStage(laterFailed).chain(() -> failure);
            }
            return failure.onFailure().invoke(() -> laterFailed.complete(null));
        }, Duration.ofSeconds(30), 2);

        kafka.send(topic, PLAYER, event("a1"));
        await().atMost(Duration.ofSeconds(30)).until(() -> calls.size() == 1);
        kafka.send(topic, other, event(other, "b1"));

        await().atMost(Duration.ofSeconds(30)).until(() -> stored(topic).size() == 2 && ingest.lastFailure() == null);
        assertThat(stored(topic)).containsExactlyInAnyOrder("a1", "b1");
        assertThat(calls.subList(0, 2)).containsExactly(List.of("a1"), List.of("b1"));
        assertThat(count("outpost.ingest.batches.retried", topic, "serialization")).isEqualTo(1);
    }

    @Test
    void healableStoreFailureIsRetriedUntilStoredWithNothingSkipped() {
        String topic = topic();
        healableFailuresLeft.set(3);
        TopicIngest<NotificationEvent> ingest = ingest(topic, "g-" + topic);
        for (int i = 0; i < 5; i++) {
            kafka.send(topic, PLAYER, event("m" + i));
        }
        // the failure is cleared once the retried batch is committed, just after the store has it
        await().atMost(Duration.ofSeconds(30)).until(() -> stored(topic).size() == 5 && ingest.lastFailure() == null);
        assertThat(stored(topic)).containsExactly("m0", "m1", "m2", "m3", "m4");
        assertThat(ingest.deadLetteredCount()).isZero();
        assertThat(count("outpost.ingest.batches.retried", topic, "serialization")).isGreaterThanOrEqualTo(3);
    }

    /**
     * A store call past its deadline is abandoned — its Uni cancelled, so that the store can cancel what it started
     * in the database (history-service's appends cancel their statement: no backend is left waiting on locks beside
     * the retry) — and the batch retried as a timeout.
     */
    @Test
    void aStoreCallPastItsDeadlineIsCancelledAndItsBatchRetried() {
        String topic = topic();
        AtomicInteger hangsLeft = new AtomicInteger(1);
        AtomicInteger cancelled = new AtomicInteger();
        TopicIngest<NotificationEvent> ingest = ingest(topic, "g-" + topic, batch -> hangsLeft.getAndDecrement() > 0
                ? Uni.createFrom().<Void>nothing().onCancellation().invoke(cancelled::incrementAndGet)
                : store(topic, batch), Duration.ofSeconds(1));
        for (int i = 0; i < 5; i++) {
            kafka.send(topic, PLAYER, event("m" + i));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> stored(topic).size() == 5 && ingest.lastFailure() == null);
        assertThat(stored(topic)).containsExactly("m0", "m1", "m2", "m3", "m4");
        assertThat(cancelled).as("store calls abandoned at their deadline, cancelled").hasValue(1);
        assertThat(count("outpost.ingest.batches.retried", topic, "timeout")).isEqualTo(1);
    }

    @Test
    void nothingIsCommittedPastADeadLetterKafkaRefusedAndTheLetterIsSentOnceItCanBe() throws Exception {
        String topic = topic();
        String group = "g-" + topic;
        String dlq = Topics.deadLetter(topic);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1), new NewTopic(dlq, 1, (short) 1)
                    .configs(Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "1000")))).all().get(30, TimeUnit.SECONDS);
            TopicIngest<NotificationEvent> ingest = ingest(topic, group);
            kafka.send(topic, PLAYER, event("before"));
            kafka.send(topic, PLAYER, "{\"too big for the dead-letter topic\":\"" + "x".repeat(2000) + "\"}");
            kafka.send(topic, PLAYER, event("after"));

            await().atMost(Duration.ofSeconds(30)).until(() -> count("outpost.ingest.batches.retried", topic, "kafka") >= 2);
            assertThat(committed(admin, group, topic)).isLessThanOrEqualTo(1L);
            assertThat(ingest.deadLetteredCount()).isZero();

            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, dlq), List.of(
                    new AlterConfigOp(new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "1048588"),
                            AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> committed(admin, group, topic) == 3L);
            assertThat(kafka.read(dlq, null, 2, Duration.ofSeconds(5))).hasSize(1);
            assertThat(stored(topic)).containsExactly("before", "after");
            assertThat(ingest.deadLetteredCount()).isEqualTo(1);
        }
    }

    @Test
    void aRecordTooLargeToDeadLetterWholeIsDeadLetteredCutAndThePartitionMovesOn() {
        String topic = topic();
        TopicIngest<NotificationEvent> ingest = ingest(topic, "g-" + topic);
        String huge = event("m".repeat(1_048_300)); // fits Kafka's 1 MiB, but not with the reason added
        kafka.send(topic, PLAYER, huge);
        kafka.send(topic, PLAYER, event("after"));

        await().atMost(Duration.ofSeconds(30)).until(() -> stored(topic).size() == 1 && ingest.deadLetteredCount() == 1);
        assertThat(stored(topic)).containsExactly("after");
        TestKafka.Received letter = kafka.read(Topics.deadLetter(topic), null, 1, Duration.ofSeconds(30)).get(0);
        assertThat(letter.headers().get(DeadLetters.TRUNCATED_HEADER)).isEqualTo(Integer.toString(huge.length()));
        assertThat(letter.headers().get(Topics.DLQ_REASON_HEADER))
                .isEqualTo("value.message: String should have at most 4096 characters [string_too_long]");
        assertThat(huge).startsWith(letter.value());
        assertThat(letter.value().length()).isBetween(990_000, DeadLetters.MAX_LETTER_BYTES);
    }

    @Test
    void committedRecordsAreNotDeliveredAgainToTheNextInstance() {
        String topic = topic();
        String group = "g-" + topic;
        TopicIngest<NotificationEvent> first = ingest(topic, group);
        kafka.sendAll(topic, List.of(Map.entry(PLAYER, event("a")), Map.entry(PLAYER, event("b"))));
        await().atMost(Duration.ofSeconds(30)).until(() -> first.storedCount() == 2);
        first.close();

        TopicIngest<NotificationEvent> second = ingest(topic, group);
        kafka.send(topic, PLAYER, event("c"));
        await().atMost(Duration.ofSeconds(30)).until(() -> second.storedCount() == 1);
        assertThat(stored(topic)).containsExactly("a", "b", "c");
        assertThat(second.storedCount()).isEqualTo(1);
    }

    @Test
    void deadLettersAreRepublishedOnceByTheToolAfterTheCauseIsFixed() {
        String topic = topic();
        table = "public.ingest_replay";
        pool.query("DROP TABLE IF EXISTS " + table).execute().await().atMost(Duration.ofSeconds(30));
        pool.query(TABLE.replace("public.ingest_test", table)).execute().await().atMost(Duration.ofSeconds(30));
        TopicIngest<NotificationEvent> ingest = ingest(topic, "g-" + topic);
        kafka.send(topic, PLAYER, event("first"));
        kafka.send(topic, PLAYER, event("refuse me"));
        await().atMost(Duration.ofSeconds(30)).until(() -> ingest.deadLetteredCount() == 1);

        String bootstrap = BackingServices.shared().kafkaBootstrapServers();
        DeadLetterTool tool = new DeadLetterTool(bootstrap, DeadLetterTool.ANSWER);
        assertThat(tool.list(topic, "store_refused", 10)).isEqualTo(1);
        pool.query("ALTER TABLE " + table + " DROP CONSTRAINT ingest_replay_message_check").execute()
                .await().atMost(Duration.ofSeconds(30)); // the fix
        assertThat(tool.replay(topic, null, "replay-" + topic)).isEqualTo(1);
        assertThat(tool.replay(topic, null, "replay-" + topic)).isZero();
        await().atMost(Duration.ofSeconds(30)).until(() -> stored(topic).size() == 2);
        assertThat(stored(topic)).containsExactly("first", "refuse me");
    }

    /** An admin client of the test broker. */
    /**
     * A refused record carrying ≈ 1 MB of headers (its topic allows records of 1.2 MB): its letter would exceed the
     * producer's 1 MiB limit with them, be refused every time and hold up the partition. It keeps the headers that
     * fit its bound, says what was cut, and the next record of the same key is stored within seconds.
     */
    @Test
    void aRecordWithAMegabyteOfHeadersIsDeadLetteredCutAndTheNextOneOfItsKeyStored() throws Exception {
        String topic = topic();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                    .configs(Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "1200000")))).all().get(30, TimeUnit.SECONDS);
        }
        TopicIngest<NotificationEvent> ingest = ingest(topic, "g-" + topic);
        ProducerRecord<byte[], byte[]> heavy = new ProducerRecord<>(topic, PLAYER.getBytes(StandardCharsets.UTF_8),
                "{not json".getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 11; i++) {
            heavy.headers().add("h" + i, "v".repeat(100_000).getBytes(StandardCharsets.UTF_8));
        }
        try (KafkaProducer<byte[], byte[]> producer = largeRecordProducer()) {
            producer.send(heavy).get(30, TimeUnit.SECONDS);
        }
        kafka.send(topic, PLAYER, event("after"));

        await().atMost(Duration.ofSeconds(20)).until(() -> stored(topic).equals(List.of("after")));
        assertThat(ingest.deadLetteredCount()).isEqualTo(1);
        TestKafka.Received letter = kafka.read(Topics.deadLetter(topic), null, 1, Duration.ofSeconds(30)).get(0);
        assertThat(letter.key()).isEqualTo(PLAYER);
        assertThat(letter.value()).isEqualTo("{not json");
        assertThat(letter.headers().get(Topics.DLQ_REASON_HEADER)).isEqualTo("value: JSON decode error [json_invalid]");
        assertThat(letter.headers()).containsKeys("h0", "h1").doesNotContainKeys("h3", "h10");
        assertThat(letter.headers().get(DeadLetters.CUT_HEADER))
                .isEqualTo("headers 9 of 11 dropped (900109 bytes): h2, h3, h4, h5, h6, h7, h8, h9, h10");
    }

    /**
     * A letter the broker refuses as too large however it is sent (its dead-letter topic allows 2,000 bytes) is
     * skipped with a metric and a log line, never retried for ever: the next record of its key is stored.
     */
    @Test
    void aDeadLetterTheBrokerRefusesAsTooLargeIsSkippedAndTheNextRecordStored() throws Exception {
        String topic = topic();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1), new NewTopic(Topics.deadLetter(topic), 1,
                    (short) 1).configs(Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "2000"))))
                    .all().get(30, TimeUnit.SECONDS);
        }
        tooLargeLetterGiveUp = Duration.ofSeconds(3);
        TopicIngest<NotificationEvent> ingest = ingest(topic, "g-" + topic);
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, PLAYER.getBytes(StandardCharsets.UTF_8),
                "{not json".getBytes(StandardCharsets.UTF_8));
        record.headers().add("h", "v".repeat(5_000).getBytes(StandardCharsets.UTF_8));
        try (KafkaProducer<byte[], byte[]> producer = largeRecordProducer()) {
            producer.send(record).get(30, TimeUnit.SECONDS);
        }
        kafka.send(topic, PLAYER, event("after"));

        await().atMost(Duration.ofSeconds(30)).until(() -> stored(topic).equals(List.of("after"))
                && count("outpost.ingest.dead.letters.skipped", topic, "json_invalid") == 1);
        assertThat(ingest.deadLetteredCount()).isZero();
        // retried until the give-up time passed, then skipped: not given up at the first refusal
        assertThat(count("outpost.ingest.batches.retried", topic, "kafka")).isGreaterThanOrEqualTo(1);
        try (Admin admin = admin()) { // the partition moves on past both records
            await().atMost(Duration.ofSeconds(30)).until(() -> committed(admin, "g-" + topic, topic) == 2L);
        }
    }

    private static KafkaProducer<byte[], byte[]> largeRecordProducer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                BackingServices.shared().kafkaBootstrapServers(), ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 1_300_000),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                BackingServices.shared().kafkaBootstrapServers()));
    }

    private static long committed(Admin admin, String group, String topic) throws Exception {
        OffsetAndMetadata offset = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS).get(new TopicPartition(topic, 0));
        return offset == null ? 0 : offset.offset();
    }
}
