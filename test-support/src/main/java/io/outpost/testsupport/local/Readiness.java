package io.outpost.testsupport.local;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

/** Waits for a service process started from its quarkus-app to answer {@code /q/health/ready} with 200. */
public final class Readiness {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private Readiness() {
    }

    /**
     * @param name    the service, for messages
     * @param baseUrl e.g. {@code http://127.0.0.1:8081}
     * @param log     where the process writes, named in failures
     */
    public static void await(String name, String baseUrl, Process process, Path log, Duration timeout)
            throws IOException, InterruptedException {
        await(name, baseUrl + "/q/health/ready", process, log, timeout, "ready");
    }

    /** Waits for the process to answer {@code /q/health/live} with 200: it has started, ready or not. */
    public static void awaitLive(String name, String baseUrl, Process process, Path log, Duration timeout)
            throws IOException, InterruptedException {
        await(name, baseUrl + "/q/health/live", process, log, timeout, "live");
    }

    private static void await(String name, String url, Process process, Path log, Duration timeout, String what)
            throws IOException, InterruptedException {
        HttpRequest ready = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(10)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IOException(name + " exited with " + process.exitValue() + "; see " + log);
            }
            try {
                if (HTTP.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(name + " not " + what + " after " + timeout + "; see " + log);
            }
            Thread.sleep(200);
        }
    }
}
