package io.outpost.load.auth;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.outpost.testsupport.PostgresConnection;
import io.outpost.testsupport.PostgresServer;

/**
 * Token grants per second and latency of auth-service's {@code POST /users/v2/oauth/token}, on loopback with
 * keep-alive, at 1, 16 and 64 concurrent clients (docs/benchmarks.md). Starts a throw-away PostgreSQL and the
 * built {@code auth-service/target/quarkus-app/quarkus-run.jar} (pinned with taskset), registers one client through
 * bootstrap configuration, drives the load from this JVM (pinned to the other cores), prints a Markdown table, and
 * stops everything. Bounded: every level runs a fixed warm-up and measurement time.
 *
 * <pre>
 * java -cp "$(cat load-tests/target/runtime.classpath):load-tests/target/classes" io.outpost.load.auth.TokenBenchmark \
 *     [--jar auth-service/target/quarkus-app/quarkus-run.jar] [--server-cpus 0] [--client-cpus 1] \
 *     [--concurrency 1,16,64] [--warmup-seconds 10] [--seconds 20] [--runs 3] [--generator vertx|wrk]
 * </pre>
 * CPU lists are taskset's ({@code 0}, {@code 1}, {@code 0-1}) or {@code none} for no pinning. With
 * {@code --generator wrk}, Debian's wrk drives the load (one thread) instead of this JVM.
 * <pre>
 * </pre>
 */
public final class TokenBenchmark {

    static final String CLIENT_ID = "bench-client";
    static final String CLIENT_SECRET = "bench-secret-not-for-production";

    private TokenBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        if (!Files.exists(options.jar())) {
            throw new IOException(options.jar() + " is missing: ./mvnw -pl auth-service package -DskipTests");
        }
        if (options.clientCpus() != null && !options.wrk()) {
            pinThisProcess(options.clientCpus());
        }
        System.out.println("[bench] load generator: " + (options.wrk() ? "wrk -t1" : "Vert.x, 1 event loop")
                + ", server CPUs " + options.serverCpus() + ", generator CPUs " + options.clientCpus());
        Path work = Files.createTempDirectory("outpost-token-bench-");
        System.out.println("[bench] starting PostgreSQL");
        try (PostgresServer postgres = PostgresServer.start(null, 0)) {
            int port = freePort();
            Process server = startServer(options, postgres.connection(), port, work);
            try {
                awaitReady(port, server, work.resolve("auth-service.log"));
                printSigningLine(work.resolve("auth-service.log"));
                List<String> rows = new ArrayList<>();
                for (int concurrency : options.concurrency()) {
                    List<LoadRun.Result> results = new ArrayList<>();
                    for (int run = 0; run < options.runs(); run++) {
                        Duration warmup = Duration.ofSeconds(options.warmupSeconds());
                        Duration measure = Duration.ofSeconds(options.seconds());
                        LoadRun.Result result = options.wrk()
                                ? WrkRun.run(port, basic(), concurrency, options.clientCpus(), warmup, measure, work)
                                : LoadRun.run("127.0.0.1", port, basic(), concurrency, warmup, measure);
                        System.out.println("[bench] " + concurrency + " clients, run " + (run + 1) + ": " + result);
                        results.add(result);
                    }
                    rows.add(LoadRun.Result.medianRow(concurrency, results));
                }
                printKdfRuns(port);
                System.out.println();
                System.out.println("| concurrent clients | grants/s (median, range) | p50 | p99 | p99.9 | non-200 |");
                System.out.println("|---|---|---|---|---|---|");
                rows.forEach(System.out::println);
            } finally {
                server.destroy();
                if (!server.waitFor(20, TimeUnit.SECONDS)) {
                    server.destroyForcibly();
                }
            }
        }
    }

    static String basic() {
        return "Basic " + Base64.getEncoder()
                .encodeToString((CLIENT_ID + ":" + CLIENT_SECRET).getBytes(StandardCharsets.UTF_8));
    }

    private static Process startServer(Options options, PostgresConnection pg, int port, Path work) throws IOException {
        List<String> command = new ArrayList<>();
        if (options.serverCpus() != null) {
            command.addAll(List.of("taskset", "-c", options.serverCpus()));
        }
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms256m", "-Xmx512m",
                "-Dquarkus.http.host=127.0.0.1",
                "-Dquarkus.http.port=" + port,
                "-Dquarkus.log.level=WARN",
                "-Dquarkus.log.category.\"io.outpost\".level=INFO",
                "-Dquarkus.log.console.json.enabled=false",
                "-Doutpost.auth.keys.dev-key-dir=" + work.resolve("keys"),
                "-Doutpost.auth.admin.port=0",
                "-Doutpost.auth.bootstrap-clients." + CLIENT_ID + ".secret=" + CLIENT_SECRET,
                "-Doutpost.auth.bootstrap-clients." + CLIENT_ID + ".permissions=notification:player:self:*,sandbox:config:view",
                "-Doutpost.auth.bootstrap-clients." + CLIENT_ID + ".player-uuid=00000000-0000-4000-8000-000000000001",
                "-jar", options.jar().toAbsolutePath().toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(work.resolve("auth-service.log").toFile());
        builder.environment().put("QUARKUS_DATASOURCE_REACTIVE_URL", pg.reactiveUrl());
        builder.environment().put("QUARKUS_DATASOURCE_USERNAME", pg.username());
        builder.environment().put("QUARKUS_DATASOURCE_PASSWORD", pg.password());
        System.out.println("[bench] starting auth-service on 127.0.0.1:" + port
                + (options.serverCpus() != null ? " pinned to CPU " + options.serverCpus() : "")
                + " (log: " + work.resolve("auth-service.log") + ")");
        return builder.start();
    }

    private static void awaitReady(int port, Process server, Path log) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready"))
                .timeout(Duration.ofSeconds(5)).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!server.isAlive()) {
                throw new IOException("auth-service exited; see " + log);
            }
            try {
                if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IOException("auth-service not ready after 120 s; see " + log);
    }

    private static void printSigningLine(Path log) throws IOException {
        Files.readAllLines(log).stream().filter(line -> line.contains("signing keys"))
                .forEach(line -> System.out.println("[bench] server: " + line.replaceAll(".*\\) ", "")));
    }

    /** The slow-KDF counter: it must stay near the bootstrap's few runs, or the hot path is not hot. */
    private static void printKdfRuns(int port) throws Exception {
        HttpRequest metrics = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/metrics")).build();
        HttpClient.newHttpClient().send(metrics, HttpResponse.BodyHandlers.ofLines()).body()
                .filter(line -> line.startsWith("outpost_auth_secret_kdf_total"))
                .forEach(line -> System.out.println("[bench] server: " + line));
    }

    /** Pins every thread of this JVM (the load generator) to {@code cpus}. */
    private static void pinThisProcess(String cpus) throws IOException, InterruptedException {
        long pid = ProcessHandle.current().pid();
        Process taskset = new ProcessBuilder("taskset", "-a", "-p", "-c", cpus, Long.toString(pid))
                .redirectErrorStream(true).start();
        taskset.getInputStream().transferTo(OutputStreamNull.INSTANCE);
        if (taskset.waitFor() != 0) {
            throw new IOException("taskset failed for the load generator");
        }
        System.out.println("[bench] load generator pinned to CPU " + cpus);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Command-line options. */
    record Options(Path jar, String serverCpus, String clientCpus, List<Integer> concurrency, int warmupSeconds,
            int seconds, int runs, boolean wrk) {

        static Options parse(String[] args) {
            Path jar = Path.of("auth-service/target/quarkus-app/quarkus-run.jar");
            String serverCpus = "0";
            String clientCpus = "1";
            List<Integer> concurrency = List.of(1, 16, 64);
            int warmup = 10;
            int seconds = 20;
            int runs = 3;
            boolean wrk = false;
            for (int i = 0; i + 1 < args.length; i += 2) {
                String value = args[i + 1];
                switch (args[i]) {
                    case "--jar" -> jar = Path.of(value);
                    case "--server-cpus" -> serverCpus = value.equals("none") ? null : value;
                    case "--client-cpus" -> clientCpus = value.equals("none") ? null : value;
                    case "--concurrency" -> concurrency = java.util.Arrays.stream(value.split(","))
                            .map(Integer::valueOf).toList();
                    case "--warmup-seconds" -> warmup = Math.min(120, Integer.parseInt(value));
                    case "--seconds" -> seconds = Math.min(300, Integer.parseInt(value));
                    case "--runs" -> runs = Math.min(10, Integer.parseInt(value));
                    case "--generator" -> wrk = value.equals("wrk");
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            return new Options(jar, serverCpus, clientCpus, concurrency, warmup, seconds, runs, wrk);
        }
    }

    /** Discards a stream. */
    static final class OutputStreamNull extends java.io.OutputStream {
        static final OutputStreamNull INSTANCE = new OutputStreamNull();

        @Override
        public void write(int b) {
        }
    }
}
