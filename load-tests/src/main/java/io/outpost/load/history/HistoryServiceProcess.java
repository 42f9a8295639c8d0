package io.outpost.load.history;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.local.OutpostStack;
import io.outpost.testsupport.local.Readiness;

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
        // -Dserver.jvm="…": the service's JVM options (a profiler, another collector)
        List<String> jvm = List.of(System.getProperty("server.jvm", "-Xmx512m").split(" "));
        Process process = OutpostStack.launch(OutpostStack.app(root, "history-service"), OutpostStack.javaHome(), root,
                port, backing.postgres(), backing.kafkaBootstrapServers(), jwksUrl, jvm, extraEnv, log);
        HistoryServiceProcess service = new HistoryServiceProcess(process, port, log);
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
