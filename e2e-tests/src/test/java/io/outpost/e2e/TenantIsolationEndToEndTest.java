package io.outpost.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.outpost.model.Topics;
import io.outpost.testsupport.TestKafka;

/**
 * One tenant neither reads nor hides another's history, through the gateway and the packaged services: a tools
 * client bound to its sandbox reads it and is refused every other (403 {@code insufficient_permissions}); a
 * transaction of another sandbox that reuses the tenant's {@code transaction_id} is listed in its own sandbox, and a
 * reuse with other content in the tenant's sandbox is dead-lettered, the first staying as it was.
 */
class TenantIsolationEndToEndTest {

    private static final String TOPIC = Topics.SANDBOX_CONFIG_TRANSACTIONS;

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

    private static String transaction(String sandbox, String id, String account, String name) {
        return "{\"transaction_id\":\"" + id + "\",\"sandbox_id\":\"" + sandbox + "\",\"resource_type\":\"role\","
                + "\"resource_id\":\"0b7e2f4c-1d3a-4e5b-8c6d-7e8f9a0b1c2d\",\"account_id\":\"" + account + "\","
                + "\"issued_at\":\"2026-01-02T03:04:05Z\",\"operation\":\"update\",\"version_id\":\"v-" + name + "\","
                + "\"version\":{\"name\":\"" + name + "\"}}";
    }

    @Test
    void aBoundToolsClientReadsItsSandboxAloneAndAnotherSandboxsIdHidesNothing() {
        String mine = E2eStack.TENANT_SANDBOX.toString();
        String other = UUID.randomUUID().toString();
        String id = "tx-shared-" + UUID.randomUUID();
        String first = transaction(mine, id, "tenant", "first");
        String conflicting = transaction(mine, id, "tenant", "rewritten");
        String elsewhere = transaction(other, id, "other-tenant", "elsewhere");
        kafka.send(TOPIC, mine, first);
        kafka.send(TOPIC, other, elsewhere);
        kafka.send(TOPIC, mine, conflicting);
        kafka.send(TOPIC, mine, first);

        String tools = gateway.token(E2eStack.TENANT_CLIENT, E2eStack.TENANT_SECRET);
        String console = gateway.token(E2eStack.CONSOLE_CLIENT, E2eStack.CONSOLE_SECRET);
        await("both sandboxes list their own transaction").atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(gateway.history(tools, mine, "role")).extracting(t -> t.path("version_id").asText())
                    .containsExactly("v-first");
            // a platform tool (bound to no sandbox) reads any sandbox
            assertThat(gateway.history(console, other, "role")).extracting(t -> t.path("version_id").asText())
                    .containsExactly("v-elsewhere");
        });
        List<TestKafka.Received> letters = kafka.read(Topics.deadLetter(TOPIC), mine, 1, Duration.ofSeconds(60));
        assertThat(letters).extracting(TestKafka.Received::value).containsExactly(conflicting);
        assertThat(letters.get(0).headers().get(Topics.DLQ_REASON_HEADER)).isEqualTo("value: the store refused it: "
                + "transaction_id_conflict: transaction_id " + id + " of sandbox " + mine
                + " is already stored with other content (SQLSTATE 23505) [store_refused]");
        // the same transaction again is no conflict: nothing else was dead-lettered, nothing stored twice
        assertThat(kafka.read(Topics.deadLetter(TOPIC), mine, Integer.MAX_VALUE, Duration.ofSeconds(3))).hasSize(1);
        assertThat(gateway.history(tools, mine, "role")).hasSize(1);

        for (String listing : List.of("role", "match-making-profile-list")) {
            Client.Answer refused = gateway.get("/v1/history/sandbox/" + other + "/" + listing, tools,
                    Duration.ofSeconds(30));
            assertThat(refused.status()).as(listing).isEqualTo(403);
            assertThat(refused.body().toString()).as(listing).isEqualTo("{\"auth_success\":false,"
                    + "\"error_code\":\"insufficient_permissions\",\"desc\":\"The token is not bound to sandbox "
                    + other + "\"}");
            assertThat(gateway.get("/v1/history/sandbox/" + mine + "/" + listing, tools, Duration.ofSeconds(30))
                    .status()).as(listing).isEqualTo(200);
        }
    }
}
