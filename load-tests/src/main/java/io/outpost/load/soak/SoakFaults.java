package io.outpost.load.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.outpost.model.Topics;
import io.outpost.testsupport.KafkaBroker;
import io.outpost.testsupport.ReplicatedBackingServices;
import io.outpost.testsupport.local.OutpostStack;

/**
 * The soak's three faults, each at a random moment between 10 % and 80 % of the run: the leader of a
 * {@code player-notifications} partition killed (SIGKILL; restarted 30 s later), the second notification-service
 * instance killed (SIGKILL; a new one started 5 s later), and a PostgreSQL failover (the primary killed, the
 * standby promoted 5 s later and the address moved, a new standby made 10 s after that).
 */
final class SoakFaults {

    /** One fault as it happened: what, and the second of the run it began. */
    record Event(String what, double second) {
    }

    private final ReplicatedBackingServices backing;
    private final OutpostStack stack;
    private final Consumer<List<Integer>> instancesNow;
    private final long start;
    private final List<Event> events = Collections.synchronizedList(new ArrayList<>());
    private volatile OutpostStack.Service replica;

    SoakFaults(ReplicatedBackingServices backing, OutpostStack stack, OutpostStack.Service replica,
            Consumer<List<Integer>> instancesNow, long start) {
        this.backing = backing;
        this.stack = stack;
        this.replica = replica;
        this.instancesNow = instancesNow;
        this.start = start;
    }

    /** Runs the three faults at random moments of {@code run}; the future completes when all are over. */
    CompletableFuture<Void> schedule(Duration run, long seed) {
        Random random = new Random(seed);
        List<Runnable> faults = new ArrayList<>(List.of(this::brokerLeader, this::notificationReplica, this::failover));
        Collections.shuffle(faults, random);
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (Runnable fault : faults) {
            long at = (long) (run.toMillis() * (0.1 + 0.7 * random.nextDouble()));
            all.add(CompletableFuture.runAsync(() -> {
                sleep(at);
                try {
                    fault.run();
                } catch (RuntimeException e) {
                    System.out.println("[soak] a fault failed: " + e);
                }
            }));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    List<Event> events() {
        return List.copyOf(events);
    }

    private void brokerLeader() {
        int node = backing.kafka().leader(Topics.PLAYER_NOTIFICATIONS, 0);
        KafkaBroker broker = backing.kafka().broker(node);
        note("Kafka node " + node + " (leader of player-notifications-0) killed");
        broker.kill();
        sleep(30_000);
        try {
            broker.start();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        backing.kafka().awaitInSync();
        note("Kafka node " + node + " back, all partitions in sync");
    }

    private void notificationReplica() {
        try {
            note("notification-service replica " + replica.port() + " killed");
            stack.kill(replica);
            instancesNow.accept(List.of(stack.service("notification-service").port()));
            sleep(5_000);
            replica = stack.replica("notification-service");
            instancesNow.accept(List.of(stack.service("notification-service").port(), replica.port()));
            note("a new notification-service replica ready on " + replica.port());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void failover() {
        try {
            note("PostgreSQL primary killed");
            backing.postgres().killPrimary();
            sleep(5_000);
            backing.postgres().promote();
            note("standby promoted, address moved");
            sleep(10_000);
            backing.postgres().rebuildStandby();
            note("a new synchronous standby streaming");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private void note(String what) {
        Event event = new Event(what, (System.nanoTime() - start) / 1e9);
        events.add(event);
        System.out.printf("[soak %6.1f s] %s%n", event.second(), what);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
