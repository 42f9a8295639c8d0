package io.outpost.load.notification;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.outpost.load.LatencyProbe;
import io.outpost.model.Permissions;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.outpost.testsupport.TestTokens;

/**
 * The inbox beside the long poll: one player with {@code notifications} stored notifications, then the latency of
 * the first page, of page 1,000 (page_size 100), of a notification by id and of a 304 — each one indexed query,
 * whose cost must not grow with depth. Loopback only; every phase is bounded.
 *
 * <pre>
 * java -cp "$(cat load-tests/target/runtime.classpath):load-tests/target/classes" \
 *     io.outpost.load.notification.InboxBenchmark [notifications=100000] [requests=3000] [rounds=3000]
 * </pre>
 */
public final class InboxBenchmark {

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new java.util.HashMap<>();
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            opts.put(kv[0], kv[1]);
        }
        int notifications = Integer.parseInt(opts.getOrDefault("notifications", "100000"));
        int requests = Integer.parseInt(opts.getOrDefault("requests", "3000"));
        int rounds = Integer.parseInt(opts.getOrDefault("rounds", "3000"));
        Path root = Path.of(opts.getOrDefault("root", ".")).toAbsolutePath().normalize();
        Path work = Files.createTempDirectory("outpost-inbox-bench-");
        say("work folder " + work + "; PostgreSQL with fsync on, Kafka on loopback");
        say(io.outpost.load.machine.MachineCheck.line(work));
        io.outpost.load.machine.WorkFolder.dropDataAtExit(work.resolve("pg"), work.resolve("kafka"));
        try (BackingServices backing = BackingServices.start(work.resolve("pg"), 0, work.resolve("kafka"), 0)) {
            TestTokens tokens = TestTokens.shared();
            try (NotificationServiceProcess service = NotificationServiceProcess.start(root, backing, tokens.jwksUrl(),
                    18082, work.resolve("notification-service.log"), List.of("-Xmx512m"))) {
                UUID player = UUID.randomUUID();
                long t0 = System.nanoTime();
                load(backing.postgres(), player, notifications);
                say(String.format("stored %,d notifications of one player in %.1f s, then VACUUM ANALYZE",
                        notifications, (System.nanoTime() - t0) / 1e9));
                measure(service, tokens, player, notifications, requests, rounds);
            }
        }
    }

    private static void measure(NotificationServiceProcess service, TestTokens tokens, UUID player, int stored,
            int requests, int rounds) throws Exception {
        LatencyProbe probe = new LatencyProbe(tokens.token().permissions(Permissions.NOTIFICATION_PLAYER_SELF_READ)
                .player(player).sign());
        String base = service.url() + "/notification/v1/player/me/notification?page_size=100";
        // page 1,000 starts 99,900 notifications below the newest: the cursor a client would hold there
        String deep = base + "&start_at=pos-" + (stored - 999 * 100);
        String etag = probe.get(base).headers().firstValue("ETag").orElseThrow();
        Map<String, String[]> scenarios = new LinkedHashMap<>();
        scenarios.put("page 1 (page_size 100)", new String[] { base, null, "200" });
        scenarios.put("page 1,000 (page_size 100)", new String[] { deep, null, "200" });
        scenarios.put("one notification by id", new String[] {
                service.url() + "/notification/v1/player/me/notification/n-" + (stored / 2), null, "200" });
        scenarios.put("page 1 answered 304", new String[] { base, etag, "304" });
        for (int round = 0; round < rounds; round++) {
            for (String[] s : scenarios.values()) {
                probe.get(s[0], s[1], Integer.parseInt(s[2]));
            }
        }
        List<LatencyProbe.Result> results = new ArrayList<>();
        // twice, alternated, so that a noisy moment of the machine shows as a difference between the two
        for (int pass = 1; pass <= 2; pass++) {
            for (Map.Entry<String, String[]> s : scenarios.entrySet()) {
                results.add(probe.measure(s.getKey() + " #" + pass, s.getValue()[0], s.getValue()[1],
                        Integer.parseInt(s.getValue()[2]), 0, requests, Duration.ofMinutes(2)));
            }
        }
        System.out.println();
        System.out.println("| request | requests | p50 ms | p90 ms | p99 ms | max ms | req/s | body bytes |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        results.forEach(r -> System.out.println(r.row()));
        System.out.println();
    }

    /** The player's notifications, stored straight in PostgreSQL as the ingest stores them, ids n-1 … n-count. */
    private static void load(PostgresConnection pg, UUID player, int count) throws Exception {
        try (Connection db = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
                PreparedStatement insert = db.prepareStatement("""
                        INSERT INTO notification.notification (player_uuid, seq, notification_id, message, created)
                        SELECT ?, n, 'n-' || n, 'message ' || n, now() FROM generate_series(1, ?) AS n""");
                PreparedStatement cursor = db.prepareStatement(
                        "INSERT INTO notification.player_cursor (player_uuid, last_seq) VALUES (?, ?)");
                Statement vacuum = db.createStatement()) {
            insert.setObject(1, player);
            insert.setInt(2, count);
            insert.executeUpdate();
            cursor.setObject(1, player);
            cursor.setLong(2, count);
            cursor.executeUpdate();
            vacuum.execute("VACUUM ANALYZE notification.notification");
        }
    }

    static void say(String line) {
        System.out.println("[inbox-bench] " + line);
        System.out.flush();
    }
}
