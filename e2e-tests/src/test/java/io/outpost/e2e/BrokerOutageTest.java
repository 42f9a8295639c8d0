package io.outpost.e2e;

import static io.outpost.e2e.Probe.expect;
import static io.outpost.e2e.Scene.FEW_SECONDS;
import static io.outpost.e2e.Scene.HANG;
import static io.outpost.e2e.Scene.OUTAGE;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.outpost.e2e.Client.Answer;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.KafkaBroker;

/**
 * Issue 9, points 4 and 7: the Kafka broker stopped for 10 s while producers publish and clients poll. Reads
 * need only PostgreSQL: polls and history reads stay 200 and readiness stays UP; the HTTP publish endpoint,
 * which needs Kafka, answers 503 {@code publish_unavailable} fast. When the broker is back (same port, same
 * log), the ingest resumes and everything the producers sent is delivered once, in order.
 */
class BrokerOutageTest {

    static final String PUBLISH_UNAVAILABLE = "publish_unavailable"; // the brief's agreed interfaces
    private static final int FEED_PLAYER = 9;
    /** Receives the publishes refused during the outage: what becomes of them is not asserted. */
    private static final int REFUSED_PLAYER = 10;

    @Test
    void readsStayUpAndPublishesAnswer503WhileTheBrokerIsStopped() throws Exception {
        KafkaBroker broker = BackingServices.shared().broker().orElse(null);
        Assumptions.assumeTrue(broker != null, "needs the Kafka broker started by this test run");
        Scene scene = new Scene();
        Client gateway = scene.gateway;
        String feedToken = scene.playerToken(FEED_PLAYER);
        String refusedToken = scene.playerToken(REFUSED_PLAYER);
        UUID refusedPlayer = E2eStack.PLAYERS.get(REFUSED_PLAYER);
        UUID sandbox = UUID.randomUUID();
        SoftAssertions soft = new SoftAssertions();
        try (Feed feed = new Feed(E2eStack.PLAYERS.get(FEED_PLAYER), sandbox).start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> feed.sent() >= 10);
            CompletableFuture<Answer> heldBefore = scene.heldPoll(15);
            long since = System.nanoTime();
            broker.stop();
            scene.log("broker stopped");
            try {
                List<Probe.Expectation> round = new ArrayList<>(List.of(
                        expect("poll with deadline=0", () -> gateway.getAsync(Client.POLL + "?deadline=0", feedToken,
                                HANG), 200, null, FEW_SECONDS),
                        expect("held poll (deadline=2)", () -> gateway.getAsync(Client.POLL + "?deadline=2",
                                scene.idle, HANG), 200, null, Duration.ofSeconds(2).plus(FEW_SECONDS)),
                        expect("role history", () -> gateway.getAsync("/v1/history/sandbox/" + sandbox + "/role",
                                scene.console, HANG), 200, null, FEW_SECONDS),
                        expect("publish over HTTP", () -> Client.async(() -> gateway.publish(refusedPlayer,
                                refusedToken, "refused " + System.nanoTime(), HANG)), 503, PUBLISH_UNAVAILABLE,
                                FEW_SECONDS)));
                round.addAll(scene.readiness(true));
                scene.log(Probe.repeat(soft, since, OUTAGE, round) + " rounds of probes");
            } finally {
                broker.start();
                scene.log("broker back");
            }
            Answer held = heldBefore.get(60, TimeUnit.SECONDS);
            soft.assertThat(held.status()).as("poll held since before the outage: %s", held).isEqualTo(200);
            soft.assertThat(held.took()).as("poll held since before the outage (deadline 15 s)")
                    .isLessThanOrEqualTo(Duration.ofSeconds(15).plus(FEW_SECONDS));
            int sentByNow = feed.sent();
            await("the feed goes on after the broker is back").atMost(Duration.ofSeconds(30))
                    .until(() -> feed.sent() >= sentByNow + 10);
            feed.stop();
            scene.log("feed stopped after " + feed.sent() + " notifications");
            Probe.softly(soft, () -> DatabaseOutageTest.assertDelivered(gateway, feedToken, feed.messages()));
            Probe.softly(soft, () -> DatabaseOutageTest.assertHistory(gateway, scene.console, sandbox,
                    feed.transactionIds()));
            scene.log("everything checked");
        }
        soft.assertAll();
    }
}
