package io.outpost.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import io.outpost.e2e.Client.Answer;
import io.outpost.model.Topics;
import io.outpost.testsupport.FreePorts;
import io.outpost.testsupport.local.OutpostStack;

/**
 * Issue 41, point 3: two instances of every service behind the gateway, as two replicas behind their Services;
 * while backends publish over HTTP at a steady rate, a producer feeds both topics, clients follow their cursor
 * loops and a backend asks for tokens, one replica of each service is drained as Kubernetes drains a node's pods
 * (out of the gateway, a preStop pause, SIGTERM). Every notification arrives once, in order; every transaction is
 * listed once, in order; no client meets more than one refused request per drained replica. The delivery latency
 * (publish sent → notification received) before, around and after the drain is printed.
 */
class DrainUnderLoadTest {

    private static final List<String> SERVICES = List.of("auth-service", "notification-service", "history-service");
    /** Players of E2eStack no other test uses: three publish over HTTP, the last is fed through Kafka. */
    private static final int FIRST_PLAYER = 18;
    private static final int PUBLISHING = 3;
    private static final Duration STEADY = Duration.ofSeconds(8);
    private static final Duration PRE_STOP = Duration.ofSeconds(2);

    @Test
    void everyNotificationArrivesOnceInOrderAndClientsMeetAtMostOneRefusalPerDrainedReplica() throws Exception {
        Scene scene = new Scene();
        OutpostStack stack = scene.stack;
        List<OutpostStack.Service> replicas = stack.replicas(SERVICES, Map.of("auth-service",
                Map.of("OUTPOST_AUTH_ADMIN_PORT", Integer.toString(FreePorts.pick()))));
        replicas.forEach(stack::route);
        SoftAssertions soft = new SoftAssertions();
        List<Publisher> publishers = new ArrayList<>();
        List<CursorLoop> loops = new ArrayList<>();
        AtomicBoolean asking = new AtomicBoolean(true);
        try {
            E2eStack.partitionOwners("outpost-notification", Topics.PLAYER_NOTIFICATIONS, 2);
            E2eStack.partitionOwners("outpost-history", Topics.SANDBOX_CONFIG_TRANSACTIONS, 2);
            scene.log("a second instance of every service behind the gateway, each consumer group of two");
            for (int p = 0; p <= PUBLISHING; p++) {
                loops.add(new CursorLoop(scene.gateway, scene.playerToken(FIRST_PLAYER + p), 5).startAtHead());
            }
            for (int p = 0; p < PUBLISHING; p++) {
                publishers.add(new Publisher(scene.gateway, E2eStack.PLAYERS.get(FIRST_PLAYER + p),
                        scene.playerToken(FIRST_PLAYER + p), "drain").start(50));
            }
            UUID sandbox = UUID.randomUUID();
            try (Feed feed = new Feed(E2eStack.PLAYERS.get(FIRST_PLAYER + PUBLISHING), sandbox).start()) {
                AtomicInteger tokens = new AtomicInteger();
                List<Answer> tokenRefusals = new ArrayList<>();
                CompletableFuture<Void> tokenLoop = Client.async(() -> {
                    while (asking.get()) {
                        Answer answer = scene.gateway.tokenRequest(E2eStack.PUBLISHER_CLIENT, E2eStack.PUBLISHER_SECRET, Scene.HANG);
                        if (answer.status() == 200) {
                            tokens.incrementAndGet();
                        } else {
                            synchronized (tokenRefusals) {
                                tokenRefusals.add(answer);
                            }
                        }
                        sleep(100);
                    }
                    return null;
                });
                Thread.sleep(STEADY.toMillis());
                long drainAt = System.nanoTime();
                CompletableFuture.allOf(replicas.stream().map(r -> Client.async(() -> {
                    try {
                        stack.drain(r, PRE_STOP);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return null;
                })).toArray(CompletableFuture[]::new)).join();
                long drainedAt = System.nanoTime();
                scene.log("one replica of each service drained in " + (drainedAt - drainAt) / 1_000_000 + " ms");
                Thread.sleep(STEADY.toMillis());
                asking.set(false);
                tokenLoop.join();
                for (Publisher publisher : publishers) {
                    publisher.stop();
                }
                feed.stop();
                for (int p = 0; p < PUBLISHING; p++) {
                    Publisher publisher = publishers.get(p);
                    CursorLoop loop = loops.get(p);
                    Probe.softly(soft, () -> DatabaseFailoverTest.assertLoop(loop, publisher.acceptedMessages(),
                            "the publishes answered 200"));
                    soft.assertThat(publisher.refused()).as("publishes not accepted").hasSizeLessThanOrEqualTo(SERVICES.size());
                    soft.assertThat(loop.refusals()).as("polls refused").hasSizeLessThanOrEqualTo(SERVICES.size());
                }
                CursorLoop fed = loops.get(PUBLISHING);
                Probe.softly(soft, () -> DatabaseFailoverTest.assertLoop(fed, feed.messages(), "the feed's notifications"));
                soft.assertThat(fed.refusals()).as("polls refused").hasSizeLessThanOrEqualTo(SERVICES.size());
                soft.assertThat(tokenRefusals).as("token requests refused").hasSizeLessThanOrEqualTo(SERVICES.size());
                Probe.softly(soft, () -> DatabaseOutageTest.assertHistory(scene.gateway, scene.console, sandbox,
                        feed.transactionIds()));
                scene.log(tokens.get() + " tokens, " + publishers.stream().mapToInt(p -> p.accepted().size()).sum()
                        + " publishes accepted, " + feed.sent() + " fed; refused: publishes "
                        + publishers.stream().map(p -> p.refused().size()).toList() + ", polls "
                        + loops.stream().map(l -> l.refusals().size()).toList() + ", tokens " + tokenRefusals.size());
                scene.log("delivery (publish sent -> received): " + latencies(publishers, loops, drainAt, drainedAt));
            }
        } finally {
            asking.set(false);
            publishers.forEach(Publisher::close);
            loops.forEach(CursorLoop::close);
            for (OutpostStack.Service replica : replicas) {
                stack.drain(replica, Duration.ZERO); // a no-op once drained
            }
        }
        soft.assertAll();
    }

    /** p50 / p99 / max of delivery latency before the drain, from its start until 5 s after its end, and after. */
    private static String latencies(List<Publisher> publishers, List<CursorLoop> loops, long drainAt, long drainedAt) {
        Map<String, List<Long>> windows = new HashMap<>();
        long aroundEnd = drainedAt + 5_000_000_000L;
        for (int p = 0; p < publishers.size(); p++) {
            Map<String, Long> sent = new HashMap<>();
            publishers.get(p).accepted().forEach(a -> sent.put(a.message(), a.sentNanos()));
            for (CursorLoop.Arrival arrival : loops.get(p).arrivals()) {
                Long at = sent.get(arrival.message());
                if (at != null) {
                    String window = at < drainAt ? "before" : at < aroundEnd ? "around" : "after";
                    windows.computeIfAbsent(window, w -> new ArrayList<>()).add(arrival.nanos() - at);
                }
            }
        }
        StringBuilder out = new StringBuilder();
        for (String window : List.of("before", "around", "after")) {
            long[] sorted = windows.getOrDefault(window, List.of()).stream().mapToLong(Long::longValue).sorted().toArray();
            if (sorted.length > 0) {
                out.append(window).append(" the drain: ").append(sorted.length).append(" notifications, p50 ")
                        .append(ms(sorted, 0.50)).append(" ms, p99 ").append(ms(sorted, 0.99)).append(" ms, max ")
                        .append(sorted[sorted.length - 1] / 1_000_000).append(" ms; ");
            }
        }
        return out.toString();
    }

    private static long ms(long[] sorted, double quantile) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(quantile * sorted.length) - 1)] / 1_000_000;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
