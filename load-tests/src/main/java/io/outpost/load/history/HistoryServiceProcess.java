package io.outpost.load.history;

import java.io.IOException;
import io.outpost.testsupport.local.Readiness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;

/** history-service as built ({@code target/quarkus-app}), run in its own JVM on 127.0.0.1, stopped on close. */
final class HistoryServiceProcess implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path log;

    private HistoryServiceProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    static HistoryServiceProcess start(Path root, BackingServices backing, String jwksUrl, int port, Path log,
            Map<String, String> extraEnv) throws IOException, InterruptedException {
        Path app = root.resolve("history-service/target/quarkus-app/quarkus-run.jar");
        if (!Files.exists(app)) {
            throw new IOException(app + " is missing: ./mvnw -o -pl history-service package -DskipTests first");
        }
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // -Dserver.jvm="…": the service's JVM options (a profiler, another collector)
        command.addAll(List.of(System.getProperty("server.jvm", "-Xmx512m").split(" ")));
        command.addAll(List.of("-jar", app.toString()));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        PostgresConnection pg = backing.postgres();
        Map<String, String> env = builder.environment();
        env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
        env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
        env.put("QUARKUS_DATASOURCE_REACTIVE_URL", pg.reactiveUrl());
        env.put("QUARKUS_DATASOURCE_USERNAME", pg.username());
        env.put("QUARKUS_DATASOURCE_PASSWORD", pg.password());
        env.put("KAFKA_BOOTSTRAP_SERVERS", backing.kafkaBootstrapServers());
        env.put("OUTPOST_SECURITY_JWKS_URL", jwksUrl);
        env.put("QUARKUS_LOG_CONSOLE_JSON_ENABLED", "false");
        env.putAll(extraEnv);
        HistoryServiceProcess service = new HistoryServiceProcess(builder.start(), port, log);
        service.awaitReady();
        return service;
    }

    String url() {
        return "http://127.0.0.1:" + port;
    }

    private void awaitReady() throws IOException, InterruptedException {
        Readiness.await("history-service", url(), process, log, Duration.ofMinutes(3));
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
