package io.outpost.load.notification;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.outpost.model.Permissions;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.TestTokens;

/**
 * How many long-poll re-polls per second one notification-service replica can verify, with
 * and without its verified-token cache (docs/benchmarks.md, "Bearer-token verification"). A closed loop of
 * keep-alive connections, each re-polling ({@code deadline=0}) with its own player's ES256 token, against the
 * built service in its own JVM; two request kinds per mode:
 *
 * <ul>
 * <li>{@code poll}: a whole re-poll (verification, then the poll's query) — what a replica serves;</li>
 * <li>{@code verify}: the same token without a long-poll permission, refused 403 right after verification —
 * verification alone, no database.</li>
 * </ul>
 * Settings: -Dmodes=cache,nocache -Dconnections=64 -Dtokens=1000 -Dwarmup=10 -Dseconds=20 -Druns=3
 * -Dserver.jvm="-Xmx1g" -Dserver.app=&lt;quarkus-run.jar of another build&gt; -Dlabel=&lt;name of that build&gt;.
 * Loopback only; stops by itself.
 */
public final class RepollBenchmark {

    private static final int CONNECTIONS = Integer.getInteger("connections", 64);
    private static final int TOKENS = Integer.getInteger("tokens", 1_000);
    private static final int WARMUP = Integer.getInteger("warmup", 10);
    private static final int SECONDS = Integer.getInteger("seconds", 20);
    private static final int RUNS = Integer.getInteger("runs", 3);

    private RepollBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(System.getProperty("outpost.root", ".")).toAbsolutePath();
        Path work = Files.createTempDirectory("outpost-bench-repoll-");
        io.outpost.load.machine.WorkFolder.dropDataAtExit(work.resolve("kafka"));
        List<String> jvm = List.of(System.getProperty("server.jvm", "-Xmx1g").split(" "));
        String label = System.getProperty("label", "this build");
        System.out.printf("machine: %s; build: %s; server JVM %s; %d connections, %d tokens, %d s warm-up, %d s x %d%n",
                Files.readString(Path.of("/proc/loadavg")).strip(), label, jvm, CONNECTIONS, TOKENS, WARMUP,
                SECONDS, RUNS);
        List<String> polls = new ArrayList<>();
        List<String> refusals = new ArrayList<>();
        for (int i = 0; i < TOKENS; i++) {
            UUID player = UUID.randomUUID();
            polls.add(TestTokens.shared().token().client("bench-" + i).player(player)
                    .permissions(Permissions.NOTIFICATION_PLAYER_SELF_READ).sign());
            refusals.add(TestTokens.shared().token().client("bench-" + i).player(player)
                    .permissions(Permissions.SANDBOX_CONFIG_VIEW).sign());
        }
        List<String> rows = new ArrayList<>();
        try (BackingServices backing = BackingServices.start(null, 0, work.resolve("kafka"), 0)) {
            for (String mode : System.getProperty("modes", "cache,nocache").split(",")) {
                Map<String, String> env = mode.equals("nocache")
                        ? Map.of("OUTPOST_SECURITY_VERIFIED_TOKEN_CACHE_SIZE", "0") : Map.of();
                try (NotificationServiceProcess server = NotificationServiceProcess.start(root, backing,
                        TestTokens.shared().jwksUrl(), 18082, work.resolve("notification-service-" + mode + ".log"),
                        jvm, env)) {
                    for (String kind : List.of("poll", "verify")) {
                        List<String> tokens = kind.equals("poll") ? polls : refusals;
                        int expected = kind.equals("poll") ? 200 : 403;
                        List<RepollLoad.Result> runs = new ArrayList<>();
                        for (int run = 0; run < RUNS; run++) {
                            RepollLoad.Result result = RepollLoad.run(server.port(), tokens, expected, CONNECTIONS,
                                    Duration.ofSeconds(WARMUP), Duration.ofSeconds(SECONDS));
                            System.out.printf("%s, %s, run %d: %s%n", mode, kind, run + 1, result);
                            runs.add(result);
                        }
                        rows.add(RepollLoad.Result.medianRow(label + ", " + mode, kind, runs));
                    }
                }
            }
        }
        System.out.println();
        System.out.println("| build, verified-token cache | requests | re-polls/s (median, range) | p50 | p99 | unexpected answers |");
        System.out.println("|---|---|---|---|---|---|");
        rows.forEach(System.out::println);
    }
}
