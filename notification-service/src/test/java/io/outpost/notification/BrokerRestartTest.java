package io.outpost.notification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;

import jakarta.inject.Inject;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.outpost.model.Topics;
import io.outpost.notification.messaging.NotificationIngest;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.KafkaBroker;
import io.outpost.testsupport.PostgresConnection;
import io.outpost.testsupport.TestKafka;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Issue 4, point 4 (c): 10,000 notifications, the ingest restarted and the broker stopped and started while they
 * are being ingested; afterwards each is stored exactly once, in its player's order. Small batches keep the ingest
 * slow enough to be interrupted.
 */
@QuarkusTest
@TestProfile(SmallSettingsProfile.class)
class BrokerRestartTest {

    private static final int PLAYERS = 10;
    private static final int EACH = 1000;

    @Inject
    NotificationIngest ingest;

    @Test
    void everyNotificationIsStoredExactlyOnceAcrossBrokerAndIngestRestarts() throws Exception {
        KafkaBroker broker = BackingServices.shared().broker().orElse(null);
        Assumptions.assumeTrue(broker != null, "needs the broker started by this test run");
        List<UUID> players = new ArrayList<>();
        List<Map.Entry<String, String>> records = new ArrayList<>();
        for (int p = 0; p < PLAYERS; p++) {
            players.add(UUID.randomUUID());
        }
        for (int n = 0; n < EACH; n++) {
            for (UUID player : players) {
                // every other event without an id: the one derived at ingest must survive re-delivery too
                String id = n % 2 == 0 ? ",\"notification_id\":\"" + player + "-" + n + "\"" : "";
                records.add(Map.entry(player.toString(), "{\"player_uuid\":\"" + player + "\",\"message\":\"" + n + "\"" + id + "}"));
            }
        }
        ingest.stop();
        Map<TopicPartition, OffsetAndMetadata> before = withOwnClassLoader(BrokerRestartTest::endOffsets);
        try (TestKafka kafka = new TestKafka()) {
            kafka.sendAll(Topics.PLAYER_NOTIFICATIONS, records);
        }
        ingest.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> stored(players) >= 1500);
        // the service dies mid-ingest having stored more than it committed: at restart all of it comes again
        ingest.stop();
        withOwnClassLoader(() -> rewindTo(before));
        ingest.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> stored(players) >= 4000);
        long beforeStop = stored(players);
        broker.stop();
        assertThat(beforeStop).as("still ingesting when the broker stopped").isLessThan(PLAYERS * EACH);
        withOwnClassLoader(() -> {
            broker.start();
            return null;
        });
        await().atMost(Duration.ofSeconds(120)).until(() -> stored(players) >= PLAYERS * EACH);
        for (UUID player : players) {
            List<String> messages = messagesInOrder(player);
            List<String> expected = new ArrayList<>();
            for (int n = 0; n < EACH; n++) {
                expected.add(String.valueOf(n));
            }
            assertThat(messages).isEqualTo(expected);
        }
        // re-delivered events were presented again and refused as repeats: they used up sequence numbers
        assertThat(sql("SELECT sum(last_seq) FROM notification.player_cursor WHERE player_uuid = ANY(?)", players))
                .isGreaterThan(PLAYERS * EACH);
    }

    private static Map<TopicPartition, OffsetAndMetadata> endOffsets() throws Exception {
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            admin.describeTopics(List.of(Topics.PLAYER_NOTIFICATIONS)).allTopicNames().get()
                    .get(Topics.PLAYER_NOTIFICATIONS).partitions()
                    .forEach(p -> latest.put(new TopicPartition(Topics.PLAYER_NOTIFICATIONS, p.partition()), OffsetSpec.latest()));
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            admin.listOffsets(latest).all().get().forEach((p, info) -> offsets.put(p, new OffsetAndMetadata(info.offset())));
            return offsets;
        }
    }

    private static Void rewindTo(Map<TopicPartition, OffsetAndMetadata> offsets) throws Exception {
        try (Admin admin = admin()) {
            // the group may take a moment to notice its only member left
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
                admin.alterConsumerGroupOffsets("outpost-notification", offsets).all().get();
                return true;
            });
        }
        return null;
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                BackingServices.shared().kafkaBootstrapServers()));
    }

    /** Kafka's clients load plugins through the context class loader: make it theirs. */
    private static <T> T withOwnClassLoader(Callable<T> action) throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(KafkaBroker.class.getClassLoader());
        try {
            return action.call();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    private static long stored(List<UUID> players) throws Exception {
        return sql("SELECT count(*) FROM notification.notification WHERE player_uuid = ANY(?)", players);
    }

    private static long sql(String query, List<UUID> players) throws Exception {
        try (Connection c = connect(); PreparedStatement s = c.prepareStatement(query)) {
            s.setArray(1, c.createArrayOf("uuid", players.toArray()));
            try (ResultSet rows = s.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    private static List<String> messagesInOrder(UUID player) throws Exception {
        List<String> messages = new ArrayList<>();
        try (Connection c = connect(); PreparedStatement s = c.prepareStatement(
                "SELECT message FROM notification.notification WHERE player_uuid = ? ORDER BY seq")) {
            s.setObject(1, player);
            try (ResultSet rows = s.executeQuery()) {
                while (rows.next()) {
                    messages.add(rows.getString(1));
                }
            }
        }
        return messages;
    }

    private static Connection connect() throws Exception {
        PostgresConnection pg = BackingServices.shared().postgres();
        return DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
    }
}
