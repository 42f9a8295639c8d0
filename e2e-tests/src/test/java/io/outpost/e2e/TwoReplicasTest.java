package io.outpost.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.outpost.e2e.Client.Answer;
import io.outpost.model.Topics;
import io.outpost.testsupport.TestKafka;
import io.outpost.testsupport.local.OutpostStack;

/**
 * Issue 10: two packaged notification-service processes sharing the consumer group, as replicas run in
 * production. Each ingests some partitions; a poll held on one is woken by what the other stored (through
 * PostgreSQL's announcement), and a player's cursor loop that goes to each replica in turn sees every
 * notification once, in order. A replica's wake-ups cost it at most one query per announcement, never one per poll.
 */
class TwoReplicasTest {

    private static final String SERVICE = "notification-service";
    /** Players of E2eStack no other test uses. */
    private static final int FIRST_PLAYER = 12;
    private static final int PLAYERS = 4;
    private static final int EACH = 400;
    private static final Pattern COUNTER = Pattern.compile("(?m)^outpost_notification_(?:store_queries_total\\{[^}]*"
            + "query=\"([a-z_]+)\"[^}]*\\}|announcements_total\\{[^}]*origin=\"([a-z]+)\"[^}]*\\}) ([0-9.E]+)");

    @Test
    void playersPollingBothReplicasSeeEveryNotificationOnceInOrderAndWakeUpsCostOneQueryPerAnnouncement()
            throws Exception {
        OutpostStack stack = E2eStack.get();
        Client gateway = new Client(stack.gatewayUrl());
        OutpostStack.Service second = stack.replica(SERVICE);
        try {
            List<Client> replicas = List.of(new Client(stack.service(SERVICE).url()), new Client(second.url()));
            List<UUID> players = E2eStack.PLAYERS.subList(FIRST_PLAYER, FIRST_PLAYER + PLAYERS);
            List<String> tokens = new ArrayList<>();
            for (int p = 0; p < PLAYERS; p++) {
                tokens.add(gateway.token(E2eStack.playerClient(FIRST_PLAYER + p), E2eStack.PLAYER_SECRET));
            }
            int owners = ownersOf(players);
            List<String> cursors = exactlyOnceAcrossReplicas(replicas, players, tokens, owners);
            oneQueryPerAnnouncement(replicas, players, tokens, cursors);
        } finally {
            stack.stop(second);
        }
    }

    /**
     * Waits until both replicas are members of the consumer group with partitions of their own; answers how many
     * of them own the partitions of {@code players} (1 when all the players' keys fall on one replica's partitions).
     */
    private static int ownersOf(List<UUID> players) {
        Map<Integer, String> ownerOf = E2eStack.partitionOwners("outpost-notification", Topics.PLAYER_NOTIFICATIONS, 2);
        return (int) players.stream().map(p -> ownerOf.get(E2eStack.partitionOf(p.toString(), ownerOf.size())))
                .distinct().count();
    }

    /**
     * Every player polls the two replicas in turn (first, second, first, …) with the cursor of the last answer,
     * while notifications are published to Kafka in small bursts; returns each player's last cursor.
     */
    private static List<String> exactlyOnceAcrossReplicas(List<Client> replicas, List<UUID> players,
            List<String> tokens, int owners) throws Exception {
        List<CompletableFuture<List<JsonNode>>> loops = new ArrayList<>();
        List<String> cursors = new ArrayList<>(java.util.Collections.nCopies(PLAYERS, (String) null));
        for (int p = 0; p < PLAYERS; p++) {
            int player = p;
            loops.add(Client.async(() -> {
                List<JsonNode> received = new ArrayList<>();
                String cursor = null;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                for (int poll = 0; received.size() < EACH && System.nanoTime() < deadline; poll++) {
                    Answer page = replicas.get(poll % 2).poll(tokens.get(player), cursor, 5);
                    page.body().get("notifications").forEach(received::add);
                    cursor = page.body().get("cursor").asText();
                }
                cursors.set(player, cursor);
                return received;
            }));
        }
        try (TestKafka kafka = new TestKafka()) {
            for (int n = 0; n < EACH; n += 20) {
                List<Map.Entry<String, String>> burst = new ArrayList<>();
                for (int k = n; k < n + 20; k++) {
                    for (UUID player : players) {
                        burst.add(Map.entry(player.toString(),
                                "{\"player_uuid\":\"" + player + "\",\"message\":\"" + k + "\"}"));
                    }
                }
                kafka.sendAll(Topics.PLAYER_NOTIFICATIONS, burst);
                Thread.sleep(50); // bursts: most arrive while polls are held, not as a backlog
            }
        }
        List<String> expected = new ArrayList<>();
        for (int n = 0; n < EACH; n++) {
            expected.add(Integer.toString(n));
        }
        for (int p = 0; p < PLAYERS; p++) {
            List<JsonNode> received = loops.get(p).get(150, TimeUnit.SECONDS);
            assertThat(received.stream().map(n -> n.path("message").asText()).toList())
                    .as("player %d's cursor loop over both replicas", p).isEqualTo(expected);
            assertThat(new HashSet<>(received.stream().map(n -> n.path("notification_id").asText()).toList()))
                    .as("player %d's notification ids", p).hasSize(EACH);
        }
        // the players' partitions are spread over both replicas in most runs (the players are random): then each
        // replica ingested some of them and heard the other's announcements
        for (Client replica : replicas) {
            Map<String, Double> counters = counters(replica);
            if (owners == 2) {
                assertThat(counters.getOrDefault("self", 0.0)).as("announcements of its own inserts: it ingested")
                        .isPositive();
                assertThat(counters.getOrDefault("other", 0.0)).as("announcements of the other replica's inserts")
                        .isPositive();
            }
        }
        return cursors;
    }

    /**
     * Each player holds a poll on the second replica at its head (the cursor that replica just gave it); one
     * notification per player is published. Every poll gets its notification, and the second replica sends at
     * most one query per announcement of the other's inserts (its own are handed over from memory) — none per poll.
     */
    private static void oneQueryPerAnnouncement(List<Client> replicas, List<UUID> players, List<String> tokens,
            List<String> cursors) throws Exception {
        Client second = replicas.get(1);
        List<String> heads = new ArrayList<>();
        for (int p = 0; p < PLAYERS; p++) {
            Answer page = second.poll(tokens.get(p), cursors.get(p), 0);
            assertThat(page.body().get("notifications")).as("player %d is at its head", p).isEmpty();
            heads.add(page.body().get("cursor").asText());
        }
        Map<String, Double> before = counters(second);
        List<CompletableFuture<Answer>> held = new ArrayList<>();
        for (int p = 0; p < PLAYERS; p++) {
            int player = p;
            held.add(Client.async(() -> second.poll(tokens.get(player), heads.get(player), 60)));
        }
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> counters(second).getOrDefault("held", 0.0) >= PLAYERS);
        try (TestKafka kafka = new TestKafka()) {
            List<Map.Entry<String, String>> one = new ArrayList<>();
            for (UUID player : players) {
                one.add(Map.entry(player.toString(), "{\"player_uuid\":\"" + player + "\",\"message\":\"last\"}"));
            }
            kafka.sendAll(Topics.PLAYER_NOTIFICATIONS, one);
        }
        for (int p = 0; p < PLAYERS; p++) {
            Answer answer = held.get(p).get(60, TimeUnit.SECONDS);
            assertThat(answer.body().get("notifications")).as("player %d's held poll", p).hasSize(1);
            assertThat(answer.body().get("notifications").get(0).path("message").asText()).isEqualTo("last");
        }
        Map<String, Double> after = counters(second);
        double announcements = after.getOrDefault("other", 0.0) - before.getOrDefault("other", 0.0);
        double wakeQueries = after.getOrDefault("after_many", 0.0) - before.getOrDefault("after_many", 0.0);
        assertThat(after.getOrDefault("start", 0.0) - before.getOrDefault("start", 0.0))
                .as("polls resumed at the head this replica gave: held without a query").isZero();
        assertThat(after.getOrDefault("after", 0.0) - before.getOrDefault("after", 0.0)).as("single-poll reads")
                .isZero();
        assertThat(wakeQueries).as("wake-up queries (%s announcements of the other replica)", announcements)
                .isLessThanOrEqualTo(announcements);
    }

    /** The poll path's counters of one replica: queries by kind, announcements by origin, polls held. */
    private static Map<String, Double> counters(Client replica) {
        String body = replica.get("/q/metrics", null, Duration.ofSeconds(10)).body().asText();
        Map<String, Double> counters = new java.util.HashMap<>();
        Matcher m = COUNTER.matcher(body);
        while (m.find()) {
            counters.put(m.group(1) != null ? m.group(1) : m.group(2), Double.parseDouble(m.group(3)));
        }
        Matcher held = Pattern.compile("(?m)^outpost_notification_polls_held(?:\\{[^}]*\\})? ([0-9.E]+)").matcher(body);
        if (held.find()) {
            counters.put("held", Double.parseDouble(held.group(1)));
        }
        return counters;
    }
}
