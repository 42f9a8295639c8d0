package io.outpost.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.model.Topics;
import io.outpost.model.error.ErrorDetail;
import io.outpost.model.event.NotificationEvent;
import io.outpost.testsupport.OutpostTestResource;
import io.outpost.testsupport.TestKafka;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;

/** TopicIngest against the real broker: valid events stored once, refused ones dead-lettered, failures retried. */
@QuarkusTest
@WithTestResource(value = OutpostTestResource.class, scope = TestResourceScope.GLOBAL)
class TopicIngestTest {

    private static final String PLAYER = "0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a";

    @Inject
    ObjectMapper mapper;

    private final TestKafka kafka = new TestKafka();
    private final ConcurrentLinkedQueue<Consumed<NotificationEvent>> stored = new ConcurrentLinkedQueue<>();
    private final AtomicInteger failuresLeft = new AtomicInteger();
    private final List<TopicIngest<NotificationEvent>> started = new ArrayList<>();

    @AfterEach
    void stop() {
        started.forEach(TopicIngest::close);
        kafka.close();
    }

    private TopicIngest<NotificationEvent> ingest(String topic, String group) {
        TopicIngest<NotificationEvent> ingest = TopicIngest.builder(topic, NotificationEvent.class)
                .bootstrapServers(io.outpost.testsupport.BackingServices.shared().kafkaBootstrapServers())
                .groupId(group)
                .mapper(mapper)
                .validator((key, event) -> {
                    List<ErrorDetail> faults = new ArrayList<>(event.validate(ErrorDetail.loc("value")));
                    if (!PLAYER.equals(key)) {
                        faults.add(new ErrorDetail(ErrorDetail.loc("key"), "Key should be the player_uuid",
                                "literal_error"));
                    }
                    return faults;
                })
                .store(batch -> {
                    if (failuresLeft.getAndDecrement() > 0) {
                        return Uni.createFrom().failure(new IllegalStateException("database unreachable"));
                    }
                    stored.addAll(batch);
                    return Uni.createFrom().voidItem();
                })
                .build().start();
        started.add(ingest);
        return ingest;
    }

    private static String topic() {
        return "ingest-test-" + UUID.randomUUID();
    }

    private static String event(String message) {
        return "{\"player_uuid\":\"" + PLAYER + "\",\"message\":\"" + message + "\"}";
    }

    private List<String> storedMessages() {
        return stored.stream().map(c -> c.event().message()).toList();
    }

    @Test
    void storesValidEventsInOrderAndDeadLettersEachRefusedOneWithItsReason() {
        String topic = topic();
        TopicIngest<NotificationEvent> ingest = ingest(topic, "g-" + topic);
        kafka.send(topic, PLAYER, event("one"));
        kafka.send(topic, PLAYER, "{not json");
        kafka.send(topic, PLAYER, event("x".repeat(4097)));
        kafka.send(topic, PLAYER, "{\"player_uuid\":\"" + PLAYER + "\",\"message\":\"m\",\"custom_data\":[1]}");
        kafka.send(topic, "someone-else", event("wrong key"));
        kafka.send(topic, PLAYER, event("two"));

        await().atMost(Duration.ofSeconds(30)).until(() -> stored.size() == 2 && ingest.deadLetteredCount() == 4);
        assertThat(storedMessages()).containsExactly("one", "two");

        List<TestKafka.Received> letters = kafka.read(Topics.deadLetter(topic), null, 4, Duration.ofSeconds(30));
        // letters keep their keys, so those of different keys may sit on different partitions: any order
        assertThat(letters).extracting(r -> r.headers().get(Topics.DLQ_REASON_HEADER)).containsExactlyInAnyOrder(
                "value: JSON decode error [json_invalid]",
                "value.message: String should have at most 4096 characters [string_too_long]",
                "value.custom_data: Input has the wrong type [json_invalid]",
                "key: Key should be the player_uuid [literal_error]");
        TestKafka.Received unparsable = letters.stream().filter(r -> r.value().equals("{not json")).findFirst()
                .orElseThrow();
        assertThat(unparsable.key()).isEqualTo(PLAYER);
        assertThat(unparsable.headers().get(DeadLetters.SOURCE_HEADER)).matches(topic + "/[0-3]/1");
    }

    @Test
    void failedBatchIsRetriedUntilStoredWithNothingSkipped() {
        String topic = topic();
        failuresLeft.set(3);
        TopicIngest<NotificationEvent> ingest = ingest(topic, "g-" + topic);
        for (int i = 0; i < 5; i++) {
            kafka.send(topic, PLAYER, event("m" + i));
        }
        // the failure is cleared once the retried batch is committed, just after the store has it
        await().atMost(Duration.ofSeconds(30)).until(() -> ingest.storedCount() == 5 && ingest.lastFailure() == null);
        assertThat(storedMessages()).containsExactly("m0", "m1", "m2", "m3", "m4");
    }

    @Test
    void committedRecordsAreNotDeliveredAgainToTheNextInstance() {
        String topic = topic();
        String group = "g-" + topic;
        TopicIngest<NotificationEvent> first = ingest(topic, group);
        kafka.sendAll(topic, List.of(Map.entry(PLAYER, event("a")), Map.entry(PLAYER, event("b"))));
        await().atMost(Duration.ofSeconds(30)).until(() -> first.storedCount() == 2);
        first.close();

        stored.clear();
        TopicIngest<NotificationEvent> second = ingest(topic, group);
        kafka.send(topic, PLAYER, event("c"));
        await().atMost(Duration.ofSeconds(30)).until(() -> second.storedCount() == 1);
        assertThat(storedMessages()).containsExactly("c");
    }
}
