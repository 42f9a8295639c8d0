package io.outpost.load.soak;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.HdrHistogram.Histogram;

import io.outpost.load.machine.MachineCheck;
import io.outpost.load.machine.WorkFolder;
import io.outpost.model.Permissions;
import io.outpost.testsupport.ReplicatedBackingServices;
import io.outpost.testsupport.TestTokens;
import io.outpost.testsupport.local.OutpostStack;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The fault soak (docs/benchmarks.md): the services on backing services of the prod overlay's shape (three Kafka
 * nodes, a PostgreSQL primary with a synchronous standby behind one address), two notification-service instances,
 * notifications produced at a steady rate for players each holding a long poll, role transactions beside them, and
 * three faults at random moments ({@link SoakFaults}). Prints each minute's deliveries and latency, then checks that
 * no acknowledged notification was lost, doubled or delivered out of its player's order, and that every sandbox's
 * history lists its acknowledged transactions once, in order. Loopback only; stops by itself (the run, then at most
 * 3 minutes to drain). Settings: -Dminutes=20 -Drate=1000 (notifications/s, a multiple of 100) -Dheld=10000 (players,
 * each polling) -Dhistory.rate=100 -Dsandboxes=200 -Dseed (the faults' moments).
 */
public final class FaultSoak {

    private static final int MINUTES = Integer.getInteger("minutes", 20);
    private static final int RATE = Integer.getInteger("rate", 1_000);
    private static final int HELD = Integer.getInteger("held", 10_000);
    private static final int HISTORY_RATE = Integer.getInteger("history.rate", 100);
    private static final int SANDBOXES = Integer.getInteger("sandboxes", 200);
    private static final long SEED = Long.getLong("seed", System.currentTimeMillis());
    private static final Duration DRAIN = Duration.ofMinutes(3);

    private FaultSoak() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(System.getProperty("outpost.root", ".")).toAbsolutePath();
        Path work = Files.createTempDirectory("outpost-soak-");
        WorkFolder.dropDataAtExit(work.resolve("backing"));
        System.out.printf("soak: %d min, %,d notifications/s for %,d players polling, %d transactions/s over %d sandboxes,"
                + " seed %d; work dir %s%n", MINUTES, RATE, HELD, HISTORY_RATE, SANDBOXES, SEED, work);
        System.out.println(MachineCheck.line(work));
        boolean passed;
        try (ReplicatedBackingServices backing = ReplicatedBackingServices.start(work.resolve("backing"));
                OutpostStack stack = stack(root, work, backing)) {
            // stopped by a signal, the run still stops what it started (PostgreSQL has no watchdog of its own)
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                stack.close();
                backing.close();
            }, "soak-stop"));
            OutpostStack.Service replica = stack.replica("notification-service");
            List<UUID> players = Stream.generate(UUID::randomUUID).limit(HELD).toList();
            List<UUID> sandboxes = Stream.generate(UUID::randomUUID).limit(SANDBOXES).toList();
            SoakLedger ledger = new SoakLedger(HELD);
            try (SoakPollers pollers = new SoakPollers(HELD, List.of(stack.service("notification-service").port(),
                    replica.port()), ledger)) {
                for (int p = 0; p < HELD; p++) {
                    pollers.hold(p, players.get(p), TestTokens.shared().token()
                            .permissions(Permissions.NOTIFICATION_PLAYER_SELF_READ).player(players.get(p)).sign(), null);
                }
                Thread.sleep(10_000); // the polls are held
                long start = System.nanoTime();
                SoakFaults faults = new SoakFaults(backing, stack, replica, pollers::ports, start);
                try (SoakProducers producers = new SoakProducers(backing.kafka().bootstrapServers(), players, ledger,
                        sandboxes, RATE, HISTORY_RATE).start()) {
                    CompletableFuture<Void> faulted = faults.schedule(Duration.ofMinutes(MINUTES), SEED);
                    List<String> minutes = new ArrayList<>();
                    for (int minute = 1; minute <= MINUTES; minute++) {
                        Thread.sleep(60_000);
                        minutes.add(minute(minute, pollers, ledger));
                    }
                    producers.stop();
                    faulted.get(5, TimeUnit.MINUTES);
                    long drainUntil = System.nanoTime() + DRAIN.toNanos();
                    while (ledger.lost() > 0 && System.nanoTime() < drainUntil) {
                        Thread.sleep(1_000);
                    }
                    minutes.add(minute(MINUTES + 1, pollers, ledger) + " (drain after the run)");
                    passed = report(minutes, faults, ledger, history(stack, sandboxes, producers));
                }
            }
        }
        System.exit(passed ? 0 : 1);
    }

    private static OutpostStack stack(Path root, Path work, ReplicatedBackingServices backing) throws Exception {
        int[] ports = { io.outpost.testsupport.FreePorts.pick(), io.outpost.testsupport.FreePorts.pick(),
                io.outpost.testsupport.FreePorts.pick() };
        OutpostStack stack = new OutpostStack(root, work.resolve("logs"), backing.addresses(), ports, 0)
                .progress(line -> System.out.println("[soak] " + line));
        for (String service : List.of("notification-service", "history-service")) {
            // the soak's tokens are signed by test-support's keys, as in the other benchmarks
            stack.env(service, "OUTPOST_SECURITY_JWKS_URL", TestTokens.shared().jwksUrl())
                    .env(service, "OUTPOST_SECURITY_ISSUER", TestTokens.ISSUER);
        }
        return stack.start();
    }

    private static String minute(int minute, SoakPollers pollers, SoakLedger ledger) {
        Histogram h = pollers.latencies();
        String line = String.format("| %d | %,d | %,d | %.0f | %.0f | %.0f | %,d | %,d |", minute, h.getTotalCount(),
                pollers.refused.getAndSet(0), h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0,
                h.getMaxValue() / 1000.0, ledger.doubled.get(), ledger.reordered.get());
        System.out.println(line);
        return line;
    }

    /** Per sandbox: its listing compared with what Kafka acknowledged; answers the problems found. */
    private static List<String> history(OutpostStack stack, List<UUID> sandboxes, SoakProducers producers)
            throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String token = TestTokens.shared().token().permissions(Permissions.SANDBOX_CONFIG_VIEW).sign();
        String base = stack.service("history-service").url();
        List<String> problems = new ArrayList<>();
        for (int s = 0; s < sandboxes.size(); s++) {
            List<String> listed = new ArrayList<>();
            String cursor = "0";
            while (cursor != null) {
                HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/history/sandbox/"
                        + sandboxes.get(s) + "/role?sort_order=asc&page_size=500&cursor="
                        + URLEncoder.encode(cursor, StandardCharsets.UTF_8))).header("Authorization", "Bearer " + token)
                        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
                if (page.statusCode() != 200) {
                    problems.add("sandbox " + s + ": " + page.statusCode() + " " + page.body());
                    break;
                }
                JsonObject body = new JsonObject(page.body());
                JsonArray transactions = body.getJsonArray("transactions");
                for (int i = 0; i < transactions.size(); i++) {
                    listed.add(transactions.getJsonObject(i).getString("transaction_id"));
                }
                Object next = body.getJsonObject("page_meta").getValue("cursor");
                cursor = next instanceof String text ? text : null;
            }
            if (!listed.equals(producers.acked(s))) {
                problems.add("sandbox " + s + ": " + listed.size() + " listed, " + producers.acked(s).size()
                        + " acknowledged" + (listed.size() == new java.util.HashSet<>(listed).size() ? "" : ", some twice"));
            }
        }
        return problems;
    }

    /** Prints the tables and the verdict; answers whether nothing was lost, doubled or reordered. */
    private static boolean report(List<String> minutes, SoakFaults faults, SoakLedger ledger, List<String> history) {
        System.out.println();
        System.out.println("| minute | delivered | polls refused (retried) | p50 ms | p99 ms | max ms | doubled (total) | out of order (total) |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        minutes.forEach(System.out::println);
        System.out.println();
        faults.events().forEach(e -> System.out.printf("- minute %d (%.0f s): %s%n", (int) (e.second() / 60) + 1,
                e.second(), e.what()));
        long lost = ledger.lost();
        System.out.printf("%nnotifications: %,d acknowledged, %,d send failures, %,d received; lost %,d, doubled %,d,"
                + " out of order %,d%n", ledger.ackedTotal.get(), ledger.sendFailures.get(), ledger.receivedTotal.get(),
                lost, ledger.doubled.get(), ledger.reordered.get());
        ledger.missingExamples(5).forEach(System.out::println);
        System.out.println("history: " + (history.isEmpty() ? "every sandbox lists its acknowledged transactions once, in order"
                : history.size() + " sandbox(es) differ: " + history.subList(0, Math.min(5, history.size()))));
        boolean passed = lost == 0 && ledger.doubled.get() == 0 && ledger.reordered.get() == 0 && history.isEmpty();
        System.out.println(passed ? "SOAK PASSED" : "SOAK FAILED");
        return passed;
    }
}
