package io.outpost.load.notification;

import java.io.Writer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.HdrHistogram.Histogram;

import io.outpost.model.Permissions;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.local.OutpostStack;

/**
 * Unloaded publish → answer through the gateway (docs/benchmarks.md): the whole local stack as {@code ./run-local}
 * runs it (the three packaged services, PostgreSQL with fsync on, a Kafka broker, the gateway), one game client
 * whose token may publish to its own player and read its notifications. Each round holds a long poll through the
 * gateway, then publishes one notification through the gateway (HTTP → Kafka → ingest → PostgreSQL → the held
 * poll) and times the publish request's start to the poll's answer. One round at a time: no load but this.
 * The same rounds then go straight to notification-service, so the gateway's share shows. The warm-up is long
 * enough for the JIT to compile the path: measured after 1,000 rounds the p50 through the gateway is ≈ 1.4 × the
 * one after 5,000 (docs/benchmarks.md, "Decisions"), so it prints the p50 of each {@value #WINDOW}
 * rounds of its warm-up, to show where the figure settles. A warm-up round waits {@value #WARMUP_HOLD_MILLIS} ms
 * for its poll to be held, a measured one {@value #HOLD_MILLIS} ms (the longer pause reads ≈ 1 ms slower).
 * Settings: -Drounds=300 -Dwarmup=5000.
 */
public final class GatewayRoundTrip {

    private static final int ROUNDS = Integer.getInteger("rounds", 300);
    private static final int WARMUP = Integer.getInteger("warmup", 5000);
    /** The warm-up's figures are printed per this many rounds. */
    private static final int WINDOW = 1000;
    /** How long a measured round waits for its poll to be held (through the gateway ≈ 2 ms) before it publishes. */
    private static final int HOLD_MILLIS = 30;
    /** The same for a warm-up round: shorter, so that the warm-up takes less time. */
    private static final int WARMUP_HOLD_MILLIS = 10;
    private static final String CLIENT = "bench-game";
    private static final String SECRET = "bench-game-secret-" + UUID.randomUUID();
    private static final String POLL = "/notification/v1/player/me/stream/notification/lp";
    private static final Pattern CURSOR = Pattern.compile("\"cursor\":\"([^\"]+)\"");

    private GatewayRoundTrip() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(System.getProperty("outpost.root", ".")).toAbsolutePath();
        Path work = Files.createTempDirectory("outpost-bench-roundtrip-");
        UUID player = UUID.randomUUID();
        System.out.printf("machine: %s; work dir %s%n", Files.readString(Path.of("/proc/loadavg")).strip(), work);
        System.out.println(io.outpost.load.machine.MachineCheck.line(work));
        io.outpost.load.machine.WorkFolder.dropDataAtExit(work.resolve("pg"), work.resolve("kafka"));
        try (BackingServices backing = BackingServices.start(work.resolve("pg"), 0, work.resolve("kafka"), 0);
                OutpostStack stack = new OutpostStack(root, work.resolve("logs"), backing,
                        new int[] { free(), free(), free() }, 0)
                        .progress(line -> System.out.println("[stack] " + line))
                        .env("auth-service", "QUARKUS_CONFIG_LOCATIONS", clients(work, player).toString())
                        .env("auth-service", "OUTPOST_AUTH_KEYS_DEV_KEY_DIR", work.resolve("keys").toString())
                        .env("auth-service", "OUTPOST_AUTH_ADMIN_PORT", Integer.toString(free()))
                        .start()) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            String gateway = stack.gatewayUrl();
            String token = token(http, gateway);
            String cursor = poll(http, gateway, token, null, 0).join();
            String direct = stack.service("notification-service").url();
            cursor = rounds(http, gateway, token, player, cursor, "through the gateway");
            rounds(http, direct, token, player, cursor, "straight to notification-service (no gateway)");
        }
    }

    /** WARMUP + ROUNDS rounds against {@code base}; prints the figures of the last ROUNDS. Answers the last cursor. */
    private static String rounds(HttpClient http, String base, String token, UUID player, String cursor, String label)
            throws Exception {
        Histogram roundTrip = new Histogram(3);
        Histogram publishOnly = new Histogram(3);
        Histogram window = new Histogram(3);
        StringBuilder warming = new StringBuilder();
        for (int round = 0; round < WARMUP + ROUNDS; round++) {
            CompletableFuture<String> held = poll(http, base, token, cursor, 30);
            // the poll is held before the notification is published
            Thread.sleep(round < WARMUP ? WARMUP_HOLD_MILLIS : HOLD_MILLIS);
            long start = System.nanoTime();
            HttpResponse<String> published = http.send(HttpRequest.newBuilder(URI.create(base
                    + "/notification/v1/player/" + player + "/notification"))
                    .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"notifications\":[{\"message\":\"round " + round
                            + "\"}]}")).build(), HttpResponse.BodyHandlers.ofString());
            long accepted = System.nanoTime();
            if (published.statusCode() != 200) {
                throw new IllegalStateException("publish answered " + published.statusCode() + ": " + published.body());
            }
            cursor = held.get(30, TimeUnit.SECONDS);
            long answered = System.nanoTime();
            if (round >= WARMUP) {
                roundTrip.recordValue(TimeUnit.NANOSECONDS.toMicros(answered - start));
                publishOnly.recordValue(TimeUnit.NANOSECONDS.toMicros(accepted - start));
            } else {
                window.recordValue(TimeUnit.NANOSECONDS.toMicros(answered - start));
                if ((round + 1) % WINDOW == 0 || round + 1 == WARMUP) {
                    warming.append(String.format(" %.1f", window.getValueAtPercentile(50) / 1000.0));
                    window.reset();
                }
            }
        }
        if (WARMUP > 0) {
            System.out.printf("warm-up, %s: p50 of each %d rounds:%s ms%n", label, WINDOW, warming);
        }
        System.out.printf("publish → held poll's answer, %s, %d rounds (after %d warm-up): "
                + "p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms%n", label, ROUNDS, WARMUP,
                roundTrip.getValueAtPercentile(50) / 1000.0, roundTrip.getValueAtPercentile(90) / 1000.0,
                roundTrip.getValueAtPercentile(99) / 1000.0, roundTrip.getMaxValue() / 1000.0);
        System.out.printf("    of which the publish request (200 once Kafka acknowledged): p50 %.1f ms, p99 %.1f ms%n",
                publishOnly.getValueAtPercentile(50) / 1000.0, publishOnly.getValueAtPercentile(99) / 1000.0);
        return cursor;
    }

    /** A poll through the gateway; answers the cursor of its answer, which must hold a notification unless deadline 0. */
    private static CompletableFuture<String> poll(HttpClient http, String gateway, String token, String cursor,
            int deadline) {
        String query = "?deadline=" + deadline
                + (cursor == null ? "" : "&exclude_before=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
        return http.sendAsync(HttpRequest.newBuilder(URI.create(gateway + POLL + query))
                .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString())
                .thenApply(answer -> {
                    if (answer.statusCode() != 200 || (deadline > 0 && answer.body().contains("\"notifications\":[]"))) {
                        throw new IllegalStateException("poll answered " + answer.statusCode() + ": " + answer.body());
                    }
                    Matcher m = CURSOR.matcher(answer.body());
                    if (!m.find()) {
                        throw new IllegalStateException("no cursor in " + answer.body());
                    }
                    return m.group(1);
                });
    }

    private static String token(HttpClient http, String gateway) throws Exception {
        String basic = Base64.getEncoder().encodeToString((CLIENT + ":" + SECRET).getBytes(StandardCharsets.UTF_8));
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(gateway + "/users/v2/oauth/token"))
                .header("Authorization", "Basic " + basic).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"grant_type\":\"client_credentials\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        Matcher m = Pattern.compile("\"access_token\":\"([^\"]+)\"").matcher(answer.body());
        if (answer.statusCode() != 200 || !m.find()) {
            throw new IllegalStateException("no token: " + answer.statusCode() + " " + answer.body());
        }
        return m.group(1);
    }

    private static Path clients(Path work, UUID player) throws Exception {
        Properties props = new Properties();
        String prefix = "outpost.auth.bootstrap-clients." + CLIENT + ".";
        props.setProperty(prefix + "secret", SECRET);
        props.setProperty(prefix + "permissions", Permissions.NOTIFICATION_PLAYER_SELF_ALL);
        props.setProperty(prefix + "player-uuid", player.toString());
        Path file = work.resolve("clients.properties");
        try (Writer writer = Files.newBufferedWriter(file)) {
            props.store(writer, "benchmark client");
        }
        return file;
    }

    private static int free() throws Exception {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
