package io.outpost.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.outpost.model.Topics;
import io.outpost.testsupport.TestKafka;
import io.outpost.testsupport.local.OutpostStack;

/**
 * Issue 37, point 5: one number can no longer take history reads down. {@code 1e131071} is 8 characters in a
 * record and 131,072 digits as PostgreSQL writes it back; a 27 KB version of 3,000 of them was 390 MB on every read
 * of its page. The packaged history-service dead-letters it at ingest, stays up, and lists the sandbox's next
 * transaction through the gateway.
 */
class HistoryNumberBombTest {

    private static final String REASON = "value.version.n.0: Value error, number should have at most 1000 characters "
            + "written without an exponent [value_error]";

    private static TestKafka kafka;
    private static Client gateway;

    @BeforeAll
    static void start() {
        gateway = new Client(E2eStack.get().gatewayUrl());
        kafka = new TestKafka();
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    private static String transaction(String sandbox, String id, String version) {
        return "{\"transaction_id\":\"" + id + "\",\"sandbox_id\":\"" + sandbox + "\",\"resource_type\":\"role\","
                + "\"resource_id\":\"" + UUID.randomUUID() + "\",\"account_id\":\"e2e-bomb\","
                + "\"issued_at\":\"2026-01-02T03:04:05Z\",\"operation\":\"update\",\"version_id\":\"v\","
                + "\"version\":" + version + "}";
    }

    @Test
    void aVersionOfNumbersWrittenOutAt131072DigitsIsDeadLetteredAndTheReplicaListsTheNextTransaction() {
        OutpostStack stack = E2eStack.get();
        String sandbox = UUID.randomUUID().toString();
        String bomb = transaction(sandbox, "bomb-" + UUID.randomUUID(),
                "{\"name\":\"bomb\",\"n\":[" + String.join(",", Collections.nCopies(3_000, "1e131071")) + "]}");
        String nextId = "next-" + UUID.randomUUID();
        assertThat(bomb.length()).isBetween(27_000, 28_000);
        kafka.send(Topics.SANDBOX_CONFIG_TRANSACTIONS, sandbox, bomb);
        kafka.send(Topics.SANDBOX_CONFIG_TRANSACTIONS, sandbox, transaction(sandbox, nextId, "{\"name\":\"next\"}"));

        String console = gateway.token(E2eStack.CONSOLE_CLIENT, E2eStack.CONSOLE_SECRET);
        await("the next transaction listed").atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            List<JsonNode> listed = gateway.history(console, sandbox, "role");
            assertThat(listed).extracting(t -> t.path("transaction_id").asText()).containsExactly(nextId);
            assertThat(listed.get(0).path("version").path("name").asText()).isEqualTo("next");
        });
        List<TestKafka.Received> letters = kafka.read(Topics.deadLetter(Topics.SANDBOX_CONFIG_TRANSACTIONS), sandbox, 1,
                Duration.ofSeconds(60));
        assertThat(letters).hasSize(1);
        assertThat(letters.get(0).value()).isEqualTo(bomb);
        assertThat(letters.get(0).headers().get(Topics.DLQ_REASON_HEADER)).isEqualTo(REASON);

        Client history = new Client(stack.service("history-service").url());
        assertThat(history.get("/q/health/live", null, Scene.PROBE_TIMEOUT).status()).isEqualTo(200);
        assertThat(history.get("/q/health/ready", null, Scene.PROBE_TIMEOUT).status()).isEqualTo(200);
        assertThat(stack.isRunning("history-service")).isTrue();
        // and it keeps answering the sandbox's listing, page after page
        for (int i = 0; i < 3; i++) {
            assertThat(gateway.history(console, sandbox, "role")).hasSize(1);
        }
    }
}
