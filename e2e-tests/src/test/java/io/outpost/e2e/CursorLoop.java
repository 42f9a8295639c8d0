package io.outpost.e2e;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.awaitility.Awaitility;

import com.fasterxml.jackson.databind.JsonNode;

import io.outpost.e2e.Client.Answer;

/**
 * A game client that follows its cursor loop through the gateway for as long as a fault test runs: held polls
 * ({@code deadline} seconds), each started from the previous answer's cursor (the first from the earliest). What
 * arrives is kept in order with the time it arrived; an answer that is not a 200 — a refusal (503), the gateway's
 * 502, no answer — is kept too, and the same poll is sent again after 1 s, as {@code Retry-After: 1} asks.
 */
final class CursorLoop implements AutoCloseable {

    /** One notification as it arrived: its message, its id, and {@code System.nanoTime()} at its arrival. */
    record Arrival(String message, String notificationId, long nanos) {
    }

    private final Client gateway;
    private final String token;
    private final int deadlineSeconds;
    private final List<Arrival> arrivals = new ArrayList<>();
    private final List<Answer> refusals = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile String cursor;

    CursorLoop(Client gateway, String token, int deadlineSeconds) {
        this.gateway = gateway;
        this.token = token;
        this.deadlineSeconds = deadlineSeconds;
        this.thread = new Thread(this::loop, "e2e-cursor-loop");
        this.thread.setDaemon(true);
    }

    /** Starts the loop at the player's earliest notification. */
    CursorLoop start() {
        thread.start();
        return this;
    }

    /** Starts the loop at the player's head: only what is stored from now on arrives. */
    CursorLoop startAtHead() {
        Answer head = gateway.get(Client.POLL + "?deadline=0&offset_reset_strategy=latest", token, Scene.HANG);
        if (head.status() != 200) {
            throw new AssertionError("the head of the player's notifications: " + head);
        }
        cursor = head.body().get("cursor").asText();
        return start();
    }

    private void loop() {
        while (running) {
            String query = "?max_page_size=100&deadline=" + deadlineSeconds + (cursor == null
                    ? "&offset_reset_strategy=earliest"
                    : "&exclude_before=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
            Answer page = gateway.get(Client.POLL + query, token, Duration.ofSeconds(deadlineSeconds + 30L));
            long now = System.nanoTime();
            if (page.status() != 200) {
                synchronized (this) {
                    refusals.add(page);
                }
                sleep(1000);
                continue;
            }
            synchronized (this) {
                for (JsonNode n : page.body().get("notifications")) {
                    arrivals.add(new Arrival(n.path("message").asText(), n.path("notification_id").asText(), now));
                }
            }
            cursor = page.body().get("cursor").asText();
        }
    }

    synchronized List<Arrival> arrivals() {
        return List.copyOf(arrivals);
    }

    synchronized List<String> messages() {
        return arrivals.stream().map(Arrival::message).toList();
    }

    /** The answers that were not a 200, in order. */
    synchronized List<Answer> refusals() {
        return List.copyOf(refusals);
    }

    synchronized int received() {
        return arrivals.size();
    }

    /** Waits until at least {@code count} notifications have arrived (it fails after {@code within}). */
    CursorLoop awaitReceived(int count, Duration within) {
        Awaitility.await("%d notifications along the cursor loop".formatted(count)).atMost(within)
                .pollInterval(Duration.ofMillis(50)).until(() -> received() >= count);
        return this;
    }

    /** The cursor of the last answer (null before the first). */
    String cursor() {
        return cursor;
    }

    /** Sends no further poll; the one held runs to its deadline on a daemon thread. */
    @Override
    public void close() {
        running = false;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
