package io.outpost.load.history;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.load.LatencyProbe;
import io.outpost.model.Permissions;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.TestTokens;

/**
 * history-service with 1,000,000 stored transactions: ingest rate through Kafka, then the latency of the first
 * page, of a page 10,000 pages deep and of filtered pages (page_size 50). Loopback only; every phase is bounded.
 *
 * <pre>
 * java -cp "$(cat load-tests/target/runtime.classpath):load-tests/target/classes" \
 *     io.outpost.load.history.HistoryBenchmark [rows=1000000] [ingest=200000] [requests=2000] [batch=500]
 *     [writers=2] [warm=100000] [rounds=5000]
 * </pre>
 *
 * {@code rows=0} measures the ingest alone; {@code batch} sets the service's {@code outpost.history.ingest-batch},
 * {@code writers} its {@code outpost.history.ingest-writers}; the first {@code warm} transactions of the backlog are
 * timed apart from the {@code ingest} measured after them; {@code rounds} of every read scenario warm the service up
 * before any is measured.
 */
public final class HistoryBenchmark {

    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new java.util.HashMap<>();
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            opts.put(kv[0], kv[1]);
        }
        int rows = Integer.parseInt(opts.getOrDefault("rows", "1000000"));
        int ingest = Integer.parseInt(opts.getOrDefault("ingest", "200000"));
        // stored first and timed apart: the service compiles its hot paths meanwhile (a cold start into a backlog)
        int warm = Integer.parseInt(opts.getOrDefault("warm", "100000"));
        int requests = Integer.parseInt(opts.getOrDefault("requests", "2000"));
        // rounds of every read scenario before any is measured: after 1,000 the service was still compiling, and
        // the p99s measured the JIT (docs/benchmarks.md, "Decisions")
        int rounds = Integer.parseInt(opts.getOrDefault("rounds", "5000"));
        Map<String, String> serviceEnv = new java.util.HashMap<>();
        if (opts.containsKey("batch")) {
            serviceEnv.put("OUTPOST_HISTORY_INGEST_BATCH", opts.get("batch"));
        }
        if (opts.containsKey("writers")) {
            serviceEnv.put("OUTPOST_HISTORY_INGEST_WRITERS", opts.get("writers"));
        }
        Path root = Path.of(opts.getOrDefault("root", ".")).toAbsolutePath().normalize();
        Path work = Files.createTempDirectory("outpost-history-bench-");
        say("work folder " + work + "; PostgreSQL with fsync on (a data folder of its own), Kafka on loopback");
        say(io.outpost.load.machine.MachineCheck.line(work));
        io.outpost.load.machine.WorkFolder.dropDataAtExit(work.resolve("pg"), work.resolve("kafka"));

        try (BackingServices backing = BackingServices.start(work.resolve("pg"), 0, work.resolve("kafka"), 0)) {
            double produced = IngestRun.produce(backing.kafkaBootstrapServers(), warm + ingest);
            say(String.format("produced %,d events in %.1f s before the service started", warm + ingest, produced));
            TestTokens tokens = TestTokens.shared();
            long launched = System.nanoTime();
            java.util.concurrent.CompletableFuture<IngestRun.Rate> stored;
            try (Connection watcher = BulkLoad.connect(backing.postgres())) {
                stored = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return IngestRun.await(watcher, warm, ingest, Duration.ofMinutes(10));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                try (HistoryServiceProcess service = HistoryServiceProcess.start(root, backing, tokens.jwksUrl(), 18083,
                        work.resolve("history-service.log"), serviceEnv);
                        Connection db = BulkLoad.connect(backing.postgres())) {
                    say(String.format("service ready in %.1f s", (System.nanoTime() - launched) / 1e9));
                    IngestRun.Rate rate = stored.join();
                    if (warm > 0) {
                        say(String.format("ingest, cold: the first %,d transactions in %.2f s from the first stored row:"
                                + " %,.0f/s", warm, rate.cold(), warm / rate.cold()));
                    }
                    say(String.format("ingest: %,d transactions in %.2f s%s: %,.0f/s", ingest, rate.seconds(),
                            warm > 0 ? " after those" : " from the first stored row", ingest / rate.seconds()));
                    if (rows > 0) {
                        afterIngest(db, service, tokens, rows, requests, rounds);
                    }
                }
            }
        }
    }

    private static void afterIngest(Connection db, HistoryServiceProcess service, TestTokens tokens, int rows,
            int requests, int rounds) throws Exception {
        UUID sandbox = UUID.randomUUID();
        long t0 = System.nanoTime();
        BulkLoad.load(db, sandbox, rows);
        say(String.format("bulk-loaded %,d transactions (one sandbox) in %.1f s, then VACUUM ANALYZE", rows,
                (System.nanoTime() - t0) / 1e9));
        reads(db, service, tokens, sandbox, requests, rounds);
        offsetContrast(db, sandbox);
    }

    private static void reads(Connection db, HistoryServiceProcess service, TestTokens tokens, UUID sandbox,
            int requests, int rounds) throws Exception {
        LatencyProbe probe = new LatencyProbe(tokens.token().permissions(Permissions.SANDBOX_CONFIG_VIEW).sign());
        String base = service.url() + "/v1/history/sandbox/" + sandbox + "/role?page_size=50";
        String deep = deepCursor(probe, service.url() + "/v1/history/sandbox/" + sandbox + "/role", 10_000 * 50);
        UUID role = BulkLoad.roleId(db, 4242);
        Map<String, String> scenarios = new java.util.LinkedHashMap<>();
        scenarios.put("first page", base);
        scenarios.put("page 10,001 (after 500,000 rows)", base + "&cursor=" + deep);
        scenarios.put("role_ids = one role (90 matches)", base + "&role_ids=" + role);
        scenarios.put("legacy_role_ids = 3 roles (270 matches)", base + "&legacy_role_ids=7,4242,9001");
        scenarios.put("name = 'role 4242 ' (90 matches)", base + "&name=" + enc("role 4242 "));
        scenarios.put("name = 'admin' (225,000 matches)", base + "&name=admin");
        // warm every path (JIT, prepared statements, caches) before measuring any
        for (int round = 0; round < rounds; round++) {
            for (String url : scenarios.values()) {
                probe.get(url);
            }
        }
        Duration bound = Duration.ofMinutes(2);
        List<LatencyProbe.Result> results = new ArrayList<>();
        for (Map.Entry<String, String> scenario : scenarios.entrySet()) {
            results.add(probe.measure(scenario.getKey(), scenario.getValue(), 0, requests, bound));
        }
        System.out.println();
        System.out.println("| page (page_size 50) | requests | p50 ms | p90 ms | p99 ms | max ms | req/s | body bytes |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        results.forEach(r -> System.out.println(r.row()));
        System.out.println();
    }

    /** Walks 10,000-row pages down to {@code depth} rows and returns the cursor there. */
    private static String deepCursor(LatencyProbe probe, String listing, int depth) throws Exception {
        String cursor = "0";
        for (int seen = 0; seen < depth; seen += 10_000) {
            String body = probe.get(listing + "?page_size=10000&cursor=" + cursor).body();
            cursor = JSON.readTree(body).path("page_meta").path("cursor").asText();
        }
        return cursor;
    }

    /** The same page by OFFSET straight in SQL, to show what keyset paging avoids. */
    private static void offsetContrast(Connection db, UUID sandbox) throws Exception {
        try (Statement s = db.createStatement()) {
            for (int offset : new int[] { 0, 50_000, 500_000 }) {
                long best = Long.MAX_VALUE;
                for (int i = 0; i < 5; i++) {
                    long t0 = System.nanoTime();
                    try (ResultSet r = s.executeQuery("SELECT id, version FROM history.config_transaction WHERE sandbox_id = '"
                            + sandbox + "' AND resource_type = 'role' ORDER BY id DESC OFFSET " + offset + " LIMIT 50")) {
                        while (r.next()) {
                            r.getString(2);
                        }
                    }
                    best = Math.min(best, System.nanoTime() - t0);
                }
                say(String.format("OFFSET %,d LIMIT 50 in SQL (best of 5): %.2f ms", offset, best / 1e6));
            }
        }
    }

    private static String enc(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static void say(String line) {
        System.out.println("[history-bench] " + line);
        System.out.flush();
    }
}
