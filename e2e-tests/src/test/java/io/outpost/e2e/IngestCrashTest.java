package io.outpost.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.outpost.model.Topics;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.outpost.testsupport.TestKafka;
import io.outpost.testsupport.local.OutpostStack;

/**
 * Issue 9, point 7: notification-service killed with SIGKILL in the middle of ingesting 10,000 notifications
 * published straight to Kafka, then started again (same port, same configuration); and killed while it stores two
 * batches side by side (issue 10). Each player's cursor loop then receives every one of its notifications exactly
 * once, in the order published.
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
        List<Map.Entry<String, String>> records = records("crash-", players, EACH);
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

            assertEveryCursorLoop(gateway, tokens, Collections.nCopies(PLAYERS, null), EACH);
            scene.log("every player's cursor loop checked");
        } finally {
            stack.restart(SERVICE); // a no-op unless the test failed while it was down
        }
    }

    /**
     * Killed while it stores two batches side by side: the first (player 0's) is held on its player's row lock,
     * taken by the test; the second (other players') commits beside it, but its offsets cannot be committed
     * before the first's. After SIGKILL and a restart the second batch is read again and stored once, and every
     * player's cursor loop receives each of its notifications once, in the order published.
     */
    @Test
    void aBatchCommittedBesideOneHeldIsStoredOnceAfterTheServiceIsKilledBeforeItsOffsetsAre() throws Exception {
        Scene scene = new Scene();
        OutpostStack stack = scene.stack;
        Client gateway = scene.gateway;
        int playerCount = 6;
        int each = 20;
        List<UUID> players = E2eStack.PLAYERS.subList(0, playerCount);
        UUID held = players.get(0);
        List<UUID> others = players.subList(1, playerCount);
        List<String> tokens = new ArrayList<>();
        List<String> heads = new ArrayList<>();
        for (int p = 0; p < playerCount; p++) {
            String token = gateway.token(E2eStack.playerClient(p), E2eStack.PLAYER_SECRET);
            tokens.add(token);
            heads.add(gateway.get(Client.POLL + "?deadline=0", token, Duration.ofSeconds(30)).body().get("cursor").asText());
        }
        long othersBefore = stored(others);
        PostgresConnection pg = BackingServices.shared().postgres();
        try (TestKafka kafka = new TestKafka();
                Connection lock = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password())) {
            try (PreparedStatement row = lock.prepareStatement("INSERT INTO notification.player_cursor (player_uuid, last_seq) "
                    + "VALUES (?, 0) ON CONFLICT (player_uuid) DO NOTHING")) {
                row.setObject(1, held);
                row.executeUpdate();
            }
            lock.setAutoCommit(false);
            try (PreparedStatement row = lock.prepareStatement(
                    "SELECT 1 FROM notification.player_cursor WHERE player_uuid = ? FOR UPDATE")) {
                row.setObject(1, held);
                row.executeQuery().close();
            }
            kafka.sendAll(Topics.PLAYER_NOTIFICATIONS, records("beside-", List.of(held), each));
            await().atMost(Duration.ofSeconds(60)).until(() -> ingestWaitingOnALock(pg));
            kafka.sendAll(Topics.PLAYER_NOTIFICATIONS, records("beside-", others, each));
            await().atMost(Duration.ofSeconds(60)).until(() -> stored(others) > othersBefore);
            double beside = storedBeside(scene.notification);
            stack.kill(SERVICE);
            // the killed instance's held insert ends without committing: player 0's rows can only come from the
            // records being read again, which they are only if no offset past them was committed
            terminateIngestWaitingOnALock(pg);
            lock.rollback();
            scene.log("killed " + SERVICE + " with " + (stored(others) - othersBefore) + " of the other players' "
                    + others.size() * each + " stored beside the held batch (" + (long) beside + " batch(es) beside)");
            assertThat(beside).as("batches given to the store while another was being stored").isPositive();
            stack.restart(SERVICE);

            assertEveryCursorLoop(gateway, tokens, heads, each);
            scene.log("every player's cursor loop checked");
        } finally {
            stack.restart(SERVICE); // a no-op unless the test failed while it was down
        }
    }

    /**
     * Each player's cursor loop, from its cursor in {@code from} (null: the earliest), receives notifications
     * "0".."{@code each - 1}" once each, in order, with distinct ids, and nothing after.
     */
    private static void assertEveryCursorLoop(Client gateway, List<String> tokens, List<String> from, int each) {
        List<String> expected = new ArrayList<>();
        for (int n = 0; n < each; n++) {
            expected.add(Integer.toString(n));
        }
        for (int p = 0; p < tokens.size(); p++) {
            Client.Drained drained = gateway.drain(tokens.get(p), from.get(p), each, Duration.ofSeconds(120));
            assertThat(drained.messages()).as("player %d's cursor loop", p).isEqualTo(expected);
            assertThat(new HashSet<>(drained.notifications().stream()
                    .map(n -> n.path("notification_id").asText()).toList()))
                    .as("player %d's notification ids", p).hasSize(each);
            assertThat(gateway.poll(tokens.get(p), drained.cursor(), 1).body().get("notifications"))
                    .as("nothing after player %d's last one", p).isEmpty();
        }
    }

    /**
     * Notifications 0..{@code count - 1} of each player, round the players. Every other one has no id (the one
     * derived at ingest must survive re-delivery too), the others an id made of {@code idPrefix} (a test's own: a
     * repeated id is stored once).
     */
    private static List<Map.Entry<String, String>> records(String idPrefix, List<UUID> players, int count) {
        List<Map.Entry<String, String>> records = new ArrayList<>();
        for (int n = 0; n < count; n++) {
            for (UUID player : players) {
                String id = n % 2 == 0 ? ",\"notification_id\":\"" + idPrefix + player + "-" + n + "\"" : "";
                records.add(Map.entry(player.toString(),
                        "{\"player_uuid\":\"" + player + "\",\"message\":\"" + n + "\"" + id + "}"));
            }
        }
        return records;
    }

    private static final String INGEST_WAITING_ON_A_LOCK =
            "FROM pg_stat_activity WHERE application_name LIKE 'outpost-ingest-%' AND wait_event_type = 'Lock'";

    /** Whether one of the service's ingest connections waits for a lock (the test's, on player 0's row). */
    private static boolean ingestWaitingOnALock(PostgresConnection pg) throws Exception {
        return count(pg, "SELECT count(*) " + INGEST_WAITING_ON_A_LOCK) > 0;
    }

    /** Ends the backends of ingest connections waiting for a lock (their transactions roll back). */
    private static void terminateIngestWaitingOnALock(PostgresConnection pg) throws Exception {
        assertThat(count(pg, "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) " + INGEST_WAITING_ON_A_LOCK))
                .as("held inserts of the killed instance ended").isEqualTo(1);
    }

    private static long count(PostgresConnection pg, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
                PreparedStatement s = c.prepareStatement(sql);
                ResultSet rows = s.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** The service's count of batches given to its store while another was still being stored. */
    private static double storedBeside(Client service) {
        String body = service.get("/q/metrics", null, Duration.ofSeconds(10)).body().asText();
        Matcher m = Pattern.compile("(?m)^outpost_ingest_batches_stored_beside_total\\{[^}]*topic=\"" + Topics.PLAYER_NOTIFICATIONS
                + "\"[^}]*\\} ([0-9.E]+)").matcher(body);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
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
