package io.outpost.e2e;

import static io.outpost.e2e.Probe.expect;
import static io.outpost.e2e.Scene.FEW_SECONDS;
import static io.outpost.e2e.Scene.HANG;
import static io.outpost.e2e.Scene.PROBE_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import io.outpost.e2e.Client.Answer;
import io.outpost.testsupport.PostgresPair;
import io.outpost.testsupport.ProcessFreeze;
import io.outpost.testsupport.TestKafka;

/**
 * Issue 41, point 2: the PostgreSQL primary killed (SIGKILL of every process) while records are ingested, polls
 * are held and a backend publishes; after 6 s, as an operator's failover takes, the standby is promoted and the
 * services' one address (CloudNativePG's {@code -rw} Service) moved to it. Meanwhile readiness is DOWN and new polls
 * answer 503 {@code store_unavailable}; within 10 s of the promotion every service is ready again; every
 * notification the producer had acknowledged and every publish answered 200 arrives once, in order, along clients'
 * cursor loops that went on from their cursors; every transaction is listed once, in order.
 *
 * <p>With the standby lagging (the primary's WAL sender frozen), the same failover shows what each replication mode does with what the
 * primary had acknowledged: synchronous, the ingest's commits wait, nothing is acknowledged, and everything is
 * stored after the failover; asynchronous, notifications that were committed, delivered to their player and whose
 * offsets were committed are gone from the new primary, and Kafka will not hand them over again.
 */
class DatabaseFailoverTest {

    /** How long the primary is away before the standby is promoted (an operator's failover takes seconds). */
    private static final Duration DETECTION = Duration.ofSeconds(6);
    /** The bound on the services' reconnecting, from the promotion. */
    private static final Duration RECONNECT = Duration.ofSeconds(10);
    private static final int LAGGED = 20;

    @Test
    void nothingAcknowledgedIsLostOrDoubledWhenThePrimaryIsKilledMidIngestAndMidPoll() throws Exception {
        Scene scene = new Scene(FaultStack.get());
        PostgresPair pair = FaultStack.backing().postgres();
        assertThat(pair.isSynchronous()).as("the pair replicates synchronously").isTrue();
        UUID sandbox = UUID.randomUUID();
        int feedIndex = 2;
        int publishIndex = 3;
        SoftAssertions soft = new SoftAssertions();
        try (Feed feed = new Feed(E2eStack.PLAYERS.get(feedIndex), sandbox,
                        new TestKafka(FaultStack.kafka().bootstrapServers()));
                Publisher publisher = new Publisher(scene.gateway, E2eStack.PLAYERS.get(publishIndex),
                        scene.playerToken(publishIndex), "failover");
                CursorLoop fed = new CursorLoop(scene.gateway, scene.playerToken(feedIndex), 5).startAtHead();
                CursorLoop published = new CursorLoop(scene.gateway, scene.playerToken(publishIndex), 5).startAtHead()) {
            feed.start();
            publisher.start(100);
            fed.awaitReceived(20, Duration.ofSeconds(60));
            publisher.awaitAccepted(10, Duration.ofSeconds(60));
            CompletableFuture<Answer> held = scene.heldPoll(15);
            Thread.sleep(500); // held before the primary goes
            int feedAtKill = feed.sent();
            long killedAt = System.nanoTime();
            pair.killPrimary();
            scene.log("primary killed with " + feedAtKill + " fed");
            List<Probe.Expectation> round = new ArrayList<>(List.of(
                    expect("poll with deadline=0", () -> scene.gateway.getAsync(Client.POLL + "?deadline=0",
                            scene.idle, HANG), 503, DatabaseOutageTest.STORE_UNAVAILABLE, FEW_SECONDS),
                    expect("role history", () -> scene.gateway.getAsync("/v1/history/sandbox/" + sandbox + "/role",
                            scene.console, HANG), 503, DatabaseOutageTest.STORE_UNAVAILABLE, FEW_SECONDS)));
            round.addAll(readiness(scene, false));
            Thread.sleep(1_000); // the readiness check's own deadline is 2 s: DOWN is answered within the probe's 4 s
            scene.log(Probe.repeat(soft, killedAt, DETECTION, round) + " rounds of probes without a primary");
            pair.promote();
            long promotedAt = System.nanoTime();
            scene.log("standby promoted, address moved");
            long readyAt = await("every service ready").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> allReady(scene) ? System.nanoTime() : 0L, at -> at > 0);
            long storedAt = await("a notification fed since the kill delivered").atMost(Duration.ofSeconds(60))
                    .until(() -> fed.received() > feedAtKill ? System.nanoTime() : 0L, at -> at > 0);
            scene.log("since the promotion: every service ready after " + (readyAt - promotedAt) / 1_000_000
                    + " ms, ingest delivering after " + (storedAt - promotedAt) / 1_000_000 + " ms; "
                    + publisher.refused().size() + " publish(es) refused");
            soft.assertThat(Duration.ofNanos(readyAt - promotedAt)).as("services ready again").isLessThanOrEqualTo(RECONNECT);
            soft.assertThat(Duration.ofNanos(storedAt - promotedAt)).as("ingest delivering again")
                    .isLessThanOrEqualTo(RECONNECT);
            Answer heldAnswer = held.get(60, TimeUnit.SECONDS);
            soft.assertThat(heldAnswer.status()).as("poll held across the failover: %s", heldAnswer).isIn(200, 503);
            soft.assertThat(heldAnswer.took()).as("poll held across the failover (deadline 15 s)")
                    .isLessThanOrEqualTo(Duration.ofSeconds(15).plus(FEW_SECONDS));
            publisher.awaitAccepted(publisher.accepted().size() + 10, Duration.ofSeconds(30));
            publisher.stop();
            feed.stop();
            Probe.softly(soft, () -> assertLoop(fed, feed.messages(), "the feed's notifications"));
            Probe.softly(soft, () -> assertLoop(published, publisher.acceptedMessages(), "the publishes answered 200"));
            soft.assertThat(publisher.refused()).as("publishes refused (publishing needs only Kafka)").isEmpty();
            Probe.softly(soft, () -> DatabaseOutageTest.assertHistory(scene.gateway, scene.console, sandbox,
                    feed.transactionIds()));
            scene.log("cursor loops: " + fed.refusals().size() + " and " + published.refusals().size()
                    + " polls refused and sent again from the same cursor");
        } finally {
            restore(pair);
        }
        soft.assertAll();
    }

    @Test
    void synchronousReplicationWaitsForALaggingStandbyAndLosesNothingInAFailover() throws Exception {
        Scene scene = new Scene(FaultStack.get());
        PostgresPair pair = FaultStack.backing().postgres();
        try (CursorLoop loop = new CursorLoop(scene.gateway, scene.playerToken(4), 5).startAtHead()) {
            List<String> sent = lagThenFailOver(scene, pair, true, E2eStack.PLAYERS.get(4), () -> {
                Thread.sleep(3_000);
                assertThat(loop.received()).as("delivered while the standby had not flushed them").isZero();
            });
            assertLoop(loop, sent, "what was sent while the standby lagged");
        } finally {
            restore(pair);
        }
    }

    @Test
    void asynchronousReplicationLosesWhatThePrimaryAcknowledgedWhenTheStandbyLagged() throws Exception {
        Scene scene = new Scene(FaultStack.get());
        PostgresPair pair = FaultStack.backing().postgres();
        UUID player = E2eStack.PLAYERS.get(5);
        String token = scene.playerToken(5);
        try (CursorLoop loop = new CursorLoop(scene.gateway, token, 5).startAtHead()) {
            List<String> sent = lagThenFailOver(scene, pair, false, player, () -> {
                loop.awaitReceived(LAGGED, Duration.ofSeconds(60));
                await("their offsets committed").atMost(Duration.ofSeconds(30))
                        .until(() -> FaultStack.committedToEnd("outpost-notification", player.toString()));
            });
            assertThat(loop.messages()).as("delivered to the player (200) before the failover").isEqualTo(sent);
            try (TestKafka kafka = new TestKafka(FaultStack.kafka().bootstrapServers())) {
                kafka.send(io.outpost.model.Topics.PLAYER_NOTIFICATIONS, player.toString(),
                        "{\"player_uuid\":\"" + player + "\",\"message\":\"after\"}");
            }
            Client.Drained stored = scene.gateway.drain(token, 1, Duration.ofSeconds(30));
            assertThat(stored.messages()).as("the player's notifications from the earliest, after the failover: the "
                    + LAGGED + " acknowledged before it are lost, and never ingested again").containsExactly("after");
            scene.log("asynchronous: " + LAGGED + " notifications delivered and committed before the failover are gone");
        } finally {
            restore(pair);
        }
    }

    private interface Check {
        void run() throws Exception;
    }

    /**
     * With replication {@code synchronous} or not and the standby receiving nothing (the primary's WAL sender
     * frozen), sends
     * {@link #LAGGED} notifications for {@code player} and runs {@code meanwhile}; then kills the primary, thaws
     * the standby, promotes it and waits until every service is ready. Answers the messages sent, in order.
     */
    private static List<String> lagThenFailOver(Scene scene, PostgresPair pair, boolean synchronous, UUID player,
            Check meanwhile) throws Exception {
        pair.synchronous(synchronous);
        List<Map.Entry<String, String>> records = new ArrayList<>();
        List<String> messages = new ArrayList<>();
        String label = synchronous ? "sync" : "async";
        for (int n = 0; n < LAGGED; n++) {
            messages.add(label + " " + n);
            records.add(Map.entry(player.toString(), "{\"player_uuid\":\"" + player + "\",\"message\":\"" + label
                    + " " + n + "\",\"notification_id\":\"" + label + "-" + player + "-" + n + "\"}"));
        }
        try (ProcessFreeze lagging = pair.freezeReplication();
                TestKafka kafka = new TestKafka(FaultStack.kafka().bootstrapServers())) {
            kafka.sendAll(io.outpost.model.Topics.PLAYER_NOTIFICATIONS, records);
            scene.log(label + ": " + LAGGED + " notifications sent while the standby receives nothing");
            meanwhile.run();
            pair.killPrimary(); // with the WAL sender, which sent the standby nothing of them
        }
        pair.promote();
        await("every service ready").atMost(Duration.ofSeconds(60)).until(() -> allReady(scene));
        scene.log(label + ": failed over");
        return messages;
    }

    /** The loop receives exactly {@code expected}, in order, and nothing more. */
    static void assertLoop(CursorLoop loop, List<String> expected, String what) throws InterruptedException {
        loop.awaitReceived(expected.size(), Duration.ofSeconds(90));
        Thread.sleep(1_000); // anything more would arrive by now
        assertThat(loop.messages()).as(what + " along the cursor loop").isEqualTo(expected);
    }

    /** Readiness of the three services: UP, or DOWN. */
    private static List<Probe.Expectation> readiness(Scene scene, boolean up) {
        Client auth = new Client(scene.stack.service("auth-service").url());
        List<Probe.Expectation> checks = new ArrayList<>(scene.readiness(up));
        checks.add(Probe.health("auth-service readiness", () -> auth.getAsync("/q/health/ready", null, HANG), up,
                PROBE_TIMEOUT));
        return checks;
    }

    private static boolean allReady(Scene scene) {
        return scene.ready() && new Client(scene.stack.service("auth-service").url())
                .get("/q/health/ready", null, PROBE_TIMEOUT).status() == 200;
    }

    /** A primary with a synchronous standby again, for the next test. */
    private static void restore(PostgresPair pair) throws Exception {
        if (!pair.primary().isRunning()) {
            pair.promote();
        }
        pair.synchronous(true);
        pair.rebuildStandby();
    }
}
