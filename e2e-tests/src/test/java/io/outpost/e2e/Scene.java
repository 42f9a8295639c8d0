package io.outpost.e2e;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.outpost.e2e.Client.Answer;
import io.outpost.testsupport.local.OutpostStack;

/**
 * The stack as the outage tests see it: the gateway, the two reading services' own ports (health is not behind
 * the gateway), and the tokens of the clients they play. Also the shared bounds of those tests.
 */
final class Scene {

    static final Duration OUTAGE = Duration.ofSeconds(10);
    /**
     * "Within a few seconds": an answer that needs no waiting, or a refusal once the services' own deadline on a
     * database query (5 s, {@code outpost.store.query-timeout}) has passed, with room for a loaded 2-core machine.
     */
    static final Duration FEW_SECONDS = Duration.ofSeconds(8);
    /** The readiness probe's timeout in deploy/ ({@code timeoutSeconds: 4}). */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(4);
    /** How long a request may take before it counts as hanging. */
    static final Duration HANG = Duration.ofSeconds(20);
    /** A player that never receives anything: its polls are held until their deadline. */
    static final int IDLE_PLAYER = 6;

    final OutpostStack stack;
    final Client gateway;
    final Client notification;
    final Client history;
    final String console;
    final String idle;
    private final long start = System.nanoTime();

    /** The scene of the end-to-end stack. */
    Scene() {
        this(E2eStack.get());
    }

    /** The scene of another stack with {@link E2eStack}'s clients ({@link FaultStack}). */
    Scene(OutpostStack stack) {
        this.stack = stack;
        this.gateway = new Client(stack.gatewayUrl());
        this.notification = new Client(stack.service("notification-service").url());
        this.history = new Client(stack.service("history-service").url());
        this.console = gateway.token(E2eStack.CONSOLE_CLIENT, E2eStack.CONSOLE_SECRET);
        this.idle = playerToken(IDLE_PLAYER);
    }

    /** A token of the game client bound to {@code E2eStack.PLAYERS.get(player)}. */
    String playerToken(int player) {
        return gateway.token(E2eStack.playerClient(player), E2eStack.PLAYER_SECRET);
    }

    /** A poll of the idle player, started now and held until its deadline. */
    CompletableFuture<Answer> heldPoll(int deadlineSeconds) {
        return gateway.getAsync(Client.POLL + "?deadline=" + deadlineSeconds, idle,
                Duration.ofSeconds(deadlineSeconds).plus(HANG));
    }

    /** Readiness of notification-service and history-service: both UP, or both DOWN. */
    List<Probe.Expectation> readiness(boolean up) {
        return List.of(
                Probe.health("notification-service readiness",
                        () -> notification.getAsync("/q/health/ready", null, HANG), up, PROBE_TIMEOUT),
                Probe.health("history-service readiness",
                        () -> history.getAsync("/q/health/ready", null, HANG), up, PROBE_TIMEOUT));
    }

    boolean ready() {
        return notification.get("/q/health/ready", null, PROBE_TIMEOUT).status() == 200
                && history.get("/q/health/ready", null, PROBE_TIMEOUT).status() == 200;
    }

    /** A line in the test's output with the time since the scene was set, to see where a slow run spends it. */
    void log(String step) {
        System.out.printf("[fault %5.1f s] %s%n", (System.nanoTime() - start) / 1e9, step);
    }
}
