package io.outpost.e2e;

import static io.outpost.e2e.Probe.expect;
import static io.outpost.e2e.Scene.FEW_SECONDS;
import static io.outpost.e2e.Scene.HANG;
import static io.outpost.e2e.Scene.OUTAGE;
import static org.assertj.core.api.Assertions.assertThat;
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
import io.outpost.testsupport.PostgresServer;

/**
 * Issue 9, points 5 and 7: PostgreSQL away for 10 s while producers publish and clients poll. During the outage
 * every long poll (at once, or held and started during it) and every history read answers 503
 * {@code store_unavailable} within a few seconds, readiness answers DOWN within its probe's timeout, publishing
 * (which needs only Kafka) and tokens for clients auth-service already knows go on; afterwards readiness is UP
 * again and every notification and transaction published before, during and after is delivered once, in order.
 *
 * <p>Two ways to lose the database: SIGSTOP (a network partition: connections stay open and nothing answers,
 * the hard case) and a real stop (connections refused).
 */
class DatabaseOutageTest {

    static final String STORE_UNAVAILABLE = "store_unavailable"; // the brief's agreed interfaces

    private interface Fault {
        void run() throws Exception;
    }

    @Test
    void pausedDatabaseAnswers503FastAndLosesNothing() throws Exception {
        PostgresServer pg = server();
        outage(pg::pause, pg::resume, 4, 5);
    }

    @Test
    void stoppedDatabaseAnswers503FastAndLosesNothing() throws Exception {
        PostgresServer pg = server();
        outage(pg::stop, pg::start, 7, 8);
    }

    private static PostgresServer server() {
        PostgresServer pg = BackingServices.shared().postgresServer().orElse(null);
        Assumptions.assumeTrue(pg != null, "needs the PostgreSQL started by this test run");
        return pg;
    }

    private static void outage(Fault begin, Fault end, int feedPlayer, int publishPlayer) throws Exception {
        Scene scene = new Scene();
        Client gateway = scene.gateway;
        String feedToken = scene.playerToken(feedPlayer);
        String publishClient = E2eStack.playerClient(publishPlayer);
        String publishToken = scene.playerToken(publishPlayer);
        UUID publishTo = E2eStack.PLAYERS.get(publishPlayer);
        UUID sandbox = UUID.randomUUID();
        List<String> published = new ArrayList<>();
        SoftAssertions soft = new SoftAssertions();
        try (Feed feed = new Feed(E2eStack.PLAYERS.get(feedPlayer), sandbox).start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> feed.sent() >= 10);
            publish(soft, gateway, publishTo, publishToken, "before", published);
            CompletableFuture<Answer> heldBefore = scene.heldPoll(15);
            long since = System.nanoTime();
            begin.run();
            scene.log("database away");
            try {
                List<Probe.Expectation> round = new ArrayList<>(List.of(
                        expect("poll with deadline=0", () -> gateway.getAsync(Client.POLL + "?deadline=0", feedToken,
                                HANG), 503, STORE_UNAVAILABLE, FEW_SECONDS),
                        expect("held poll (deadline=30) started during the outage", () -> gateway.getAsync(
                                Client.POLL + "?deadline=30", scene.idle, HANG), 503, STORE_UNAVAILABLE, FEW_SECONDS),
                        expect("role history", () -> gateway.getAsync("/v1/history/sandbox/" + sandbox + "/role",
                                scene.console, HANG), 503, STORE_UNAVAILABLE, FEW_SECONDS),
                        expect("profile-list history", () -> gateway.getAsync("/v1/history/sandbox/" + sandbox
                                + "/match-making-profile-list", scene.console, HANG), 503, STORE_UNAVAILABLE,
                                FEW_SECONDS),
                        expect("token for a client auth-service already knows", () -> Client.async(
                                () -> gateway.tokenRequest(publishClient, E2eStack.PLAYER_SECRET, HANG)), 200, null,
                                FEW_SECONDS),
                        expect("publish over HTTP (needs only Kafka)", () -> Client.async(() -> publish(gateway,
                                publishTo, publishToken, "during " + System.nanoTime(), published)), 200, null,
                                FEW_SECONDS)));
                round.addAll(scene.readiness(false));
                scene.log(Probe.repeat(soft, since, OUTAGE, round) + " rounds of probes");
            } finally {
                end.run();
                scene.log("database back");
            }
            Answer held = heldBefore.get(60, TimeUnit.SECONDS);
            soft.assertThat(held.status()).as("poll held since before the outage: %s", held).isIn(200, 503);
            soft.assertThat(held.took()).as("poll held since before the outage (deadline 15 s)")
                    .isLessThanOrEqualTo(Duration.ofSeconds(15).plus(FEW_SECONDS));

            Probe.softly(soft, () -> await("readiness UP again").atMost(Duration.ofSeconds(60)).until(scene::ready));
            scene.log("ready again");
            publish(soft, gateway, publishTo, publishToken, "after", published);
            feed.stop();
            Probe.softly(soft, () -> assertDelivered(gateway, feedToken, feed.messages()));
            Probe.softly(soft, () -> assertDelivered(gateway, publishToken, published));
            Probe.softly(soft, () -> assertHistory(gateway, scene.console, sandbox, feed.transactionIds()));
            scene.log("everything checked");
        }
        soft.assertAll();
    }

    private static void publish(SoftAssertions soft, Client gateway, UUID player, String token, String message,
            List<String> published) {
        Answer answer = publish(gateway, player, token, message, published);
        soft.assertThat(answer.status()).as("publish %s: %s", message, answer).isEqualTo(200);
    }

    /** Publishes one notification; a 200 adds it to what must be delivered. */
    private static Answer publish(Client gateway, UUID player, String token, String message, List<String> published) {
        Answer answer = gateway.publish(player, token, message, HANG);
        if (answer.status() == 200) {
            synchronized (published) {
                published.add(message);
            }
        }
        return answer;
    }

    /** The player's cursor loop yields exactly {@code expected}, in order, and then nothing more. */
    static void assertDelivered(Client gateway, String token, List<String> expected) {
        assertDelivered(gateway, token, expected, Duration.ofSeconds(90));
    }

    /** The same, everything delivered {@code within}. */
    static void assertDelivered(Client gateway, String token, List<String> expected, Duration within) {
        Client.Drained drained = gateway.drain(token, expected.size(), within);
        assertThat(drained.messages()).as("delivered along the cursor loop").isEqualTo(expected);
        assertThat(gateway.poll(token, drained.cursor(), 1).body().get("notifications"))
                .as("nothing after the last one").isEmpty();
    }

    /** The sandbox's role history lists exactly these transactions, in the order they were published. */
    static void assertHistory(Client gateway, String token, UUID sandbox, List<String> expected) {
        await("all transactions stored").atMost(Duration.ofSeconds(90))
                .until(() -> gateway.history(token, sandbox.toString(), "role").size() >= expected.size());
        assertThat(gateway.history(token, sandbox.toString(), "role").stream()
                .map(t -> t.path("transaction_id").asText()).toList())
                .as("role history, oldest first").isEqualTo(expected);
    }
}
