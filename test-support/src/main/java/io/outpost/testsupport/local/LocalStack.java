package io.outpost.testsupport.local;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.vertx.core.Vertx;

/**
 * The whole Outpost stack on one machine ({@code ./run-local}): PostgreSQL and Kafka (embedded unless the
 * environment names external ones, see {@link BackingServices}), then each service from its built
 * {@code quarkus-app}, each answered ready before the next line is printed. Data lives under
 * {@code .outpost-local/} and is reused by the next run. Ctrl-C stops the services, then the backing services.
 */
public final class LocalStack {

    static final int POSTGRES_PORT = 15432;
    static final int KAFKA_PORT = 19092;
    static final int GATEWAY_PORT = 8080;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(180);

    record Service(String name, int port) {
        String url() {
            return "http://127.0.0.1:" + port;
        }
    }

    static final List<Service> SERVICES = List.of(
            new Service("auth-service", 8081),
            new Service("notification-service", 8082),
            new Service("history-service", 8083));

    private final Path root;
    private final Path data;
    private final List<Process> running = new ArrayList<>();
    private BackingServices backing;
    private Vertx vertx;
    private volatile boolean stopping;

    private LocalStack(Path root) {
        this.root = root;
        this.data = root.resolve(".outpost-local");
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args.length > 1 && args[0].equals("--root") ? args[1] : ".").toAbsolutePath().normalize();
        LocalStack stack = new LocalStack(root);
        Runtime.getRuntime().addShutdownHook(new Thread(stack::stop, "outpost-local-stop"));
        try {
            stack.start();
        } catch (Exception e) {
            if (!stack.stopping) {
                System.err.println("[outpost] start-up failed: " + e.getMessage());
                System.exit(1);
            }
        }
        Thread.currentThread().join();
    }

    private void start() throws IOException, InterruptedException {
        Files.createDirectories(data.resolve("logs"));
        say("starting PostgreSQL (:" + POSTGRES_PORT + ") and Kafka (:" + KAFKA_PORT + "), data in " + data);
        backing = BackingServices.start(data.resolve("postgres"), POSTGRES_PORT, data.resolve("kafka"), KAFKA_PORT);
        PostgresConnection pg = backing.postgres();
        say("PostgreSQL ready at " + pg.reactiveUrl() + ", Kafka ready at " + backing.kafkaBootstrapServers());
        for (Service service : SERVICES) {
            say("starting " + service.name() + " (log: " + log(service) + ")");
            running.add(launch(service, pg));
        }
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        for (int i = 0; i < SERVICES.size(); i++) {
            awaitReady(http, SERVICES.get(i), running.get(i));
        }
        vertx = Vertx.vertx();
        Gateway gateway = new Gateway(vertx, Gateway.outpostRoutes(SERVICES.get(0).port(), SERVICES.get(1).port(),
                SERVICES.get(2).port()));
        try {
            gateway.listen("127.0.0.1", GATEWAY_PORT).toCompletionStage().toCompletableFuture().get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException("the gateway cannot listen on :" + GATEWAY_PORT + ": " + e.getCause().getMessage());
        }
        say("gateway ready on http://127.0.0.1:" + GATEWAY_PORT
                + " (/users, /.well-known -> auth; /notification -> notification; /v1/history -> history)");
        say("Outpost is up at http://127.0.0.1:" + GATEWAY_PORT + ". Ctrl-C stops everything; data stays in " + data);
        for (Service service : SERVICES) {
            System.out.printf("  %-22s %s   (ready: %s/q/health/ready)%n", service.name(), service.url(), service.url());
        }
    }

    private Process launch(Service service, PostgresConnection pg) throws IOException {
        Path app = root.resolve(service.name()).resolve("target/quarkus-app/quarkus-run.jar");
        if (!Files.exists(app)) {
            throw new IOException(app + " is missing: build first (./mvnw package -DskipTests)");
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-Xmx512m", "-jar", app.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log(service).toFile()));
        Map<String, String> env = builder.environment();
        env.put("QUARKUS_HTTP_PORT", Integer.toString(service.port()));
        env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
        env.put("QUARKUS_DATASOURCE_REACTIVE_URL", pg.reactiveUrl());
        env.put("QUARKUS_DATASOURCE_USERNAME", pg.username());
        env.put("QUARKUS_DATASOURCE_PASSWORD", pg.password());
        env.put("KAFKA_BOOTSTRAP_SERVERS", backing.kafkaBootstrapServers());
        env.put("QUARKUS_LOG_CONSOLE_JSON_ENABLED", "false");
        return builder.start();
    }

    private void awaitReady(HttpClient http, Service service, Process process) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        HttpRequest ready = HttpRequest.newBuilder(URI.create(service.url() + "/q/health/ready"))
                .timeout(Duration.ofSeconds(10)).build();
        while (true) {
            if (!process.isAlive()) {
                throw new IOException(service.name() + " exited with " + process.exitValue() + "; see " + log(service));
            }
            try {
                if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    say(service.name() + " ready on " + service.url());
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(service.name() + " not ready after " + READY_TIMEOUT + "; see " + log(service));
            }
            Thread.sleep(250);
        }
    }

    private synchronized void stop() {
        stopping = true;
        if (running.isEmpty() && backing == null) {
            return;
        }
        if (vertx != null) {
            vertx.close();
            vertx = null;
        }
        say("stopping the services");
        running.forEach(Process::destroy);
        for (Process process : running) {
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
            }
        }
        running.clear();
        if (backing != null) {
            say("stopping Kafka and PostgreSQL");
            backing.close();
            backing = null;
        }
        say("stopped");
    }

    private Path log(Service service) {
        return data.resolve("logs").resolve(service.name() + ".log");
    }

    private static void say(String line) {
        System.out.println("[outpost] " + line);
        System.out.flush();
    }
}
