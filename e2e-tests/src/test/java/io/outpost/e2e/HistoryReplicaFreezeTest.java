package io.outpost.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.core.JsonProcessingException;

import io.outpost.model.Topics;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.outpost.testsupport.ProcessFreeze;
import io.outpost.testsupport.TestKafka;
import io.outpost.testsupport.local.OutpostStack;

/**
 * A history-service replica frozen (SIGSTOP) in the middle of an append — inside its database transaction, holding
 * its sandboxes' writer locks — while a second replica shares the ingest. The other replica takes the frozen one's
 * partitions once Kafka expels it (10 s) and stores everything published, each sandbox's transactions once and in
 * order, nothing dead-lettered, while the first is still frozen; no backend is left waiting on a writer lock; and
 * after the thaw nothing is stored twice.
 *
 * <p>Found by a fault audit: PostgreSQL kept the frozen replica's session idle in its transaction, holding the
 * locks, for as long as the process was frozen; the other replica's writers waited behind them (6 minutes
 * without storing anything, a new waiting backend every 30 s as each abandoned store call was retried beside the
 * last). Every session now ends a transaction left idle for 5 s ({@code outpost.store.idle-in-transaction-timeout})
 * and gives up a lock wait after 10 s ({@code outpost.store.lock-timeout}).
 */
class HistoryReplicaFreezeTest {

    private static final String SERVICE = "history-service";
    /** history-service's consumer group (its default, {@code outpost.history.consumer-group}). */
    private static final String GROUP = "outpost-history";
    /** How the frozen replica's connections name themselves to PostgreSQL, to tell its sessions from the other's. */
    private static final String FROZEN = "outpost-history-frozen";
    private static final int SANDBOXES_PER_PARTITION = 8;
    /** Records published at once: a backlog that keeps both replicas appending while the freeze is tried. */
    private static final int BACKLOG = 16_000;
    private static final int ROUNDS = 4;
    /**
     * From the freeze to every record stored by the other replica: the frozen one is expelled from the group after
     * 10 s (its session was ended after 5 s), then the other stores the rest of the backlog. Before the fix it
     * stored nothing for as long as the freeze lasted.
     */
    private static final Duration STORED_WITHIN = Duration.ofSeconds(60);

    @Test
    void theOtherReplicaStoresEverythingOnceWhileOneIsFrozenMidAppendAndNothingDoublesAfterItsThaw()
            throws Exception {
        OutpostStack stack = E2eStack.get();
        Client gateway = new Client(stack.gatewayUrl());
        String token = gateway.token(E2eStack.CONSOLE_CLIENT, E2eStack.CONSOLE_SECRET);
        Path config = Files.createTempFile(Path.of("target").toAbsolutePath(), "frozen-replica-", ".properties");
        Files.writeString(config, "quarkus.datasource.reactive.additional-properties.application_name=" + FROZEN + "\n");
        OutpostStack.Service replica = stack.replica(SERVICE, Map.of("QUARKUS_CONFIG_LOCATIONS", config.toString()));
        ProcessFreeze freeze = null;
        PostgresConnection pg = BackingServices.shared().postgres();
        try (TestKafka kafka = new TestKafka();
                Connection db = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password())) {
            int partitions = E2eStack.partitionOwners(GROUP, Topics.SANDBOX_CONFIG_TRANSACTIONS, 2).size();
            Published published = new Published(sandboxesOnEveryPartition(partitions));

            long frozenAt = 0;
            for (int round = 1; round <= ROUNDS && freeze == null; round++) {
                long before = published.count();
                CompletableFuture<Void> publishing = published.publish(kafka, BACKLOG);
                await().atMost(Duration.ofSeconds(60)).until(() -> stored(db, published) > before + 1_000);
                while (freeze == null && stored(db, published) < published.count() - 2_000) {
                    long at = System.nanoTime();
                    ProcessFreeze attempt = stack.freeze(replica);
                    Thread.sleep(500); // whatever it was doing in PostgreSQL is done: it sends nothing more
                    if (locksHeldBy(db, FROZEN) > 0) {
                        freeze = attempt;
                        frozenAt = at;
                    } else {
                        attempt.close();
                        Thread.sleep(150);
                    }
                }
                publishing.get(120, TimeUnit.SECONDS);
            }
            assertThat(freeze).as("the replica frozen while it held writer locks, in %d backlogs", ROUNDS).isNotNull();
            log(frozenAt, "frozen mid-append, holding " + locksHeldBy(db, FROZEN) + " writer lock(s); "
                    + stored(db, published) + " of " + published.count() + " stored");

            AtomicLong mostWaiting = new AtomicLong();
            long total = published.count();
            try {
                await().atMost(STORED_WITHIN.minusNanos(System.nanoTime() - frozenAt)).pollInterval(Duration.ofMillis(500))
                        .until(() -> {
                            mostWaiting.accumulateAndGet(waitingWriters(db), Math::max);
                            return stored(db, published) >= total;
                        });
            } catch (ConditionTimeoutException stalled) {
                throw new AssertionError(String.format("%d of %d stored %s after the freeze; %d writer(s) waiting for "
                        + "a lock now, at most %d at once", stored(db, published), total, STORED_WITHIN,
                        waitingWriters(db), mostWaiting.get()), stalled);
            }
            log(frozenAt, "all " + total + " stored by the other replica; at most " + mostWaiting.get()
                    + " writer(s) waited for a lock at once");
            assertThat(stack.isRunning(SERVICE)).isTrue();
            assertThat(locksHeldBy(db, FROZEN)).as("writer locks the frozen replica still holds").isZero();
            assertThat(waitingWriters(db)).as("writers waiting for a lock").isZero();
            assertOnceInOrder(gateway, token, published);

            freeze.close();
            freeze = null;
            log(frozenAt, "thawed");
            // back in the group beside the other, and ingesting again: what it held when frozen is not stored twice
            E2eStack.partitionOwners(GROUP, Topics.SANDBOX_CONFIG_TRANSACTIONS, 2);
            published.publish(kafka, published.sandboxes.size()).get(60, TimeUnit.SECONDS);
            await("one more each, stored").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> stored(db, published) >= published.count());
            assertOnceInOrder(gateway, token, published);
            assertThat(new Client(replica.url()).get("/q/health/ready", null, Scene.PROBE_TIMEOUT).status())
                    .as("the thawed replica's readiness").isEqualTo(200);
            log(frozenAt, "after the thaw, every sandbox's transactions once, in order");
        } finally {
            if (freeze != null) {
                freeze.close();
            }
            stack.stop(replica);
        }
    }

    /** New sandboxes, {@link #SANDBOXES_PER_PARTITION} on each partition: both replicas ingest some of them. */
    private static List<UUID> sandboxesOnEveryPartition(int partitions) {
        List<UUID> sandboxes = new ArrayList<>();
        int[] on = new int[partitions];
        while (sandboxes.size() < partitions * SANDBOXES_PER_PARTITION) {
            UUID sandbox = UUID.randomUUID();
            int partition = E2eStack.partitionOf(sandbox.toString(), partitions);
            if (on[partition] < SANDBOXES_PER_PARTITION) {
                on[partition]++;
                sandboxes.add(sandbox);
            }
        }
        return sandboxes;
    }

    /** Role transactions published to the sandboxes, each sandbox's in order. */
    private static final class Published {
        final List<UUID> sandboxes;
        private final Map<UUID, UUID> roles = new LinkedHashMap<>();
        private final Map<UUID, List<String>> ids = new LinkedHashMap<>();

        Published(List<UUID> sandboxes) {
            this.sandboxes = sandboxes;
            sandboxes.forEach(sandbox -> {
                roles.put(sandbox, UUID.randomUUID());
                ids.put(sandbox, new ArrayList<>());
            });
        }

        synchronized long count() {
            return ids.values().stream().mapToLong(List::size).sum();
        }

        synchronized List<String> of(UUID sandbox) {
            return List.copyOf(ids.get(sandbox));
        }

        /** {@code count} more, dealt round the sandboxes, sent in the background. */
        synchronized CompletableFuture<Void> publish(TestKafka kafka, int count) throws JsonProcessingException {
            List<Map.Entry<String, String>> records = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                UUID sandbox = sandboxes.get(i % sandboxes.size());
                List<String> sent = ids.get(sandbox);
                String id = "freeze-" + UUID.randomUUID();
                records.add(Map.entry(sandbox.toString(), Feed.roleTransaction(id, sandbox, roles.get(sandbox), sent.size())));
                sent.add(id);
            }
            return CompletableFuture.runAsync(() -> kafka.sendAll(Topics.SANDBOX_CONFIG_TRANSACTIONS, records));
        }
    }

    /** Every sandbox's listing holds its transactions once, in the order published, and its total says so. */
    private static void assertOnceInOrder(Client gateway, String token, Published published) {
        for (UUID sandbox : published.sandboxes) {
            List<String> expected = published.of(sandbox);
            assertThat(gateway.history(token, sandbox.toString(), "role").stream()
                    .map(t -> t.path("transaction_id").asText()).toList())
                    .as("sandbox %s's role history, oldest first", sandbox).isEqualTo(expected);
            assertThat(gateway.get("/v1/history/sandbox/" + sandbox + "/role?page_size=1", token,
                    Duration.ofSeconds(30)).body().path("page_meta").path("total").asLong())
                    .as("sandbox %s's total", sandbox).isEqualTo(expected.size());
        }
        assertThat(deadLettered(Set.copyOf(published.sandboxes.stream().map(UUID::toString).toList())))
                .as("dead letters of these sandboxes").isEmpty();
    }

    /** The dead letters keyed by one of {@code keys} (none when the topic was never dead-lettered to). */
    private static List<TestKafka.Received> deadLettered(Set<String> keys) {
        String topic = Topics.deadLetter(Topics.SANDBOX_CONFIG_TRANSACTIONS);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                BackingServices.shared().kafkaBootstrapServers()));
                TestKafka kafka = new TestKafka()) {
            if (!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
                return List.of();
            }
            return kafka.readAll(topic, Duration.ofSeconds(60)).stream().filter(r -> keys.contains(r.key())).toList();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + topic, e);
        }
    }

    /** Rows stored for the published sandboxes. */
    private static long stored(Connection db, Published published) throws Exception {
        try (PreparedStatement s = db.prepareStatement(
                "SELECT count(*) FROM history.config_transaction WHERE sandbox_id = ANY(?)")) {
            s.setArray(1, db.createArrayOf("uuid", published.sandboxes.toArray()));
            return single(s);
        }
    }

    /** Advisory locks granted to sessions that name themselves {@code application}. */
    private static long locksHeldBy(Connection db, String application) throws Exception {
        try (PreparedStatement s = db.prepareStatement("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a "
                + "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = ?")) {
            s.setString(1, application);
            return single(s);
        }
    }

    /** Backends waiting for an advisory lock: history writers behind another's locks. */
    private static long waitingWriters(Connection db) throws Exception {
        try (PreparedStatement s = db.prepareStatement(
                "SELECT count(DISTINCT pid) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")) {
            return single(s);
        }
    }

    private static long single(PreparedStatement statement) throws Exception {
        try (ResultSet rows = statement.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static void log(long since, String step) {
        System.out.printf("[freeze %5.1f s] %s%n", (System.nanoTime() - since) / 1e9, step);
    }
}
