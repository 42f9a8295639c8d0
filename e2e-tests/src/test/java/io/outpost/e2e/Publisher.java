package io.outpost.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.outpost.e2e.Client.Answer;

/**
 * A backend that publishes to one player over HTTP through the gateway at a steady pace, one request at a time,
 * each notification with its own {@code notification_id}; it remembers, in order, which were accepted (200) and
 * which were not (with the answer), and when each accepted one was answered.
 */
final class Publisher implements AutoCloseable {

    /** One accepted notification: its message, and {@code System.nanoTime()} when it was sent and when its 200 came. */
    record Accepted(String message, long sentNanos, long nanos) {
    }

    /** One publish not accepted: its message and the answer. */
    record Refused(String message, Answer answer) {
    }

    /** Above the longest a publish may take: publish-timeout plus publish-retry-window, and a check of the cluster. */
    private static final Duration ANSWER = Duration.ofSeconds(50);

    private final Client gateway;
    private final UUID player;
    private final String token;
    private final String label;
    private final List<Accepted> accepted = new ArrayList<>();
    private final List<Refused> refused = new ArrayList<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "e2e-publisher");
        thread.setDaemon(true);
        return thread;
    });
    private int sent;

    /** @param label starts every message and id, so that each run's are its own */
    Publisher(Client gateway, UUID player, String token, String label) {
        this.gateway = gateway;
        this.player = player;
        this.token = token;
        this.label = label;
    }

    /** Publishes one notification every {@code periodMillis} (after the previous one is answered). */
    Publisher start(long periodMillis) {
        timer.scheduleWithFixedDelay(this::publishOne, 0, periodMillis, TimeUnit.MILLISECONDS);
        return this;
    }

    private void publishOne() {
        int n = sent++;
        String message = label + " " + n;
        long sentAt = System.nanoTime();
        Answer answer = gateway.publish(player, token, message, label + "-" + n, ANSWER);
        synchronized (this) {
            if (answer.status() == 200) {
                accepted.add(new Accepted(message, sentAt, System.nanoTime()));
            } else {
                refused.add(new Refused(message, answer));
            }
        }
    }

    synchronized List<Accepted> accepted() {
        return List.copyOf(accepted);
    }

    synchronized List<String> acceptedMessages() {
        return accepted.stream().map(Accepted::message).toList();
    }

    synchronized List<Refused> refused() {
        return List.copyOf(refused);
    }

    /** Stops publishing once the publish under way is answered. */
    void stop() throws InterruptedException {
        timer.shutdown();
        if (!timer.awaitTermination(ANSWER.toSeconds() + 10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the publisher did not stop");
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    /** Waits until {@code count} publishes were accepted. */
    Publisher awaitAccepted(int count, Duration within) {
        org.awaitility.Awaitility.await("%d publishes accepted".formatted(count)).atMost(within)
                .until(() -> accepted().size() >= count);
        return this;
    }
}
