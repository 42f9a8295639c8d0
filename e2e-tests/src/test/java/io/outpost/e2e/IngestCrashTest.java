package io.outpost.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.outpost.model.Topics;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.outpost.testsupport.TestKafka;
import io.outpost.testsupport.local.OutpostStack;

/**
 * Issue 9, point 7: notification-service killed with SIGKILL in the middle of ingesting 10,000 notifications
 * published straight to Kafka, then started again (same port, same configuration). Each player's cursor loop
 * then receives every one of its notifications exactly once, in the order published.
 */
class IngestCrashTest {

    private static final String SERVICE = "notification-service";
    private static final int PLAYERS = 4;
    private static final int EACH = 2_500;
    /** Killed once this many are stored, while the rest are still being published and ingested. */
    private static final int KILL_AFTER = 1_500;

    @Test
    void everyNotificationIsDeliveredOnceInOrderAfterTheServiceIsKilledMidIngest() throws Exception {
        Scene scene = new Scene();
        OutpostStack stack = scene.stack;
        Client gateway = scene.gateway;
        List<UUID> players = E2eStack.PLAYERS.subList(0, PLAYERS);
        List<String> tokens = new ArrayList<>();
        for (int p = 0; p < PLAYERS; p++) {
            tokens.add(gateway.token(E2eStack.playerClient(p), E2eStack.PLAYER_SECRET));
        }
        List<Map.Entry<String, String>> records = new ArrayList<>();
        for (int n = 0; n < EACH; n++) {
            for (UUID player : players) {
                // every other one without an id: the one derived at ingest must survive re-delivery too
                String id = n % 2 == 0 ? ",\"notification_id\":\"crash-" + player + "-" + n + "\"" : "";
                records.add(Map.entry(player.toString(),
                        "{\"player_uuid\":\"" + player + "\",\"message\":\"" + n + "\"" + id + "}"));
            }
        }
        try (TestKafka kafka = new TestKafka()) {
            // published while the service ingests them, so that the kill lands mid-ingest however fast it is
            CompletableFuture<Void> publishing = CompletableFuture.runAsync(
                    () -> kafka.sendAll(Topics.PLAYER_NOTIFICATIONS, records));
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(10))
                    .until(() -> stored(players) >= KILL_AFTER);
            stack.kill(SERVICE);
            long atKill = stored(players);
            publishing.get(120, TimeUnit.SECONDS);
            scene.log("killed " + SERVICE + " with " + atKill + " of " + PLAYERS * EACH + " stored");
            assertThat(atKill).as("killed in the middle of the ingest").isLessThan(PLAYERS * EACH);
            stack.restart(SERVICE);
            scene.log("restarted; all " + records.size() + " published");

            List<String> expected = new ArrayList<>();
            for (int n = 0; n < EACH; n++) {
                expected.add(Integer.toString(n));
            }
            for (int p = 0; p < PLAYERS; p++) {
                Client.Drained drained = gateway.drain(tokens.get(p), EACH, Duration.ofSeconds(120));
                assertThat(drained.messages()).as("player %d's cursor loop", p).isEqualTo(expected);
                assertThat(new HashSet<>(drained.notifications().stream()
                        .map(n -> n.path("notification_id").asText()).toList()))
                        .as("player %d's notification ids", p).hasSize(EACH);
                assertThat(gateway.poll(tokens.get(p), drained.cursor(), 1).body().get("notifications"))
                        .as("nothing after player %d's last one", p).isEmpty();
            }
            scene.log("every player's cursor loop checked");
        } finally {
            stack.restart(SERVICE); // a no-op unless the test failed while it was down
        }
    }

    /**
     * How many of the players' notifications are stored, read from the service's table: only to choose the
     * moment of the kill (clients see nothing of a notification before it is stored, so this is the honest
     * measure of "in the middle").
     */
    private static long stored(List<UUID> players) throws Exception {
        PostgresConnection pg = BackingServices.shared().postgres();
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
                PreparedStatement s = c.prepareStatement(
                        "SELECT count(*) FROM notification.notification WHERE player_uuid = ANY(?)")) {
            s.setArray(1, c.createArrayOf("uuid", players.toArray()));
            try (ResultSet rows = s.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
