package io.outpost.load.notification;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;

/**
 * A closed loop of re-polls: {@code connections} keep-alive connections, each sending its next {@code deadline=0}
 * poll as soon as the previous answer is read, token after token (connection i uses tokens i, i + n, …). One
 * Vert.x event loop drives them all, so the histogram needs no locks.
 */
final class RepollLoad {

    private static final String LP = "/notification/v1/player/me/stream/notification/lp?deadline=0";

    /** What one measured period gave. Latencies in microseconds. */
    record Result(double perSecond, long expected, long unexpected, long p50, long p99) {

        @Override
        public String toString() {
            return String.format("%,.0f re-polls/s, p50 %.2f ms, p99 %.2f ms, unexpected answers %d", perSecond,
                    p50 / 1000.0, p99 / 1000.0, unexpected);
        }

        static String medianRow(String mode, String kind, List<Result> runs) {
            List<Result> sorted = runs.stream().sorted(Comparator.comparingDouble(Result::perSecond)).toList();
            Result median = sorted.get(sorted.size() / 2);
            return String.format("| %s | %s | %,.0f (%,.0f–%,.0f) | %.2f ms | %.2f ms | %d |", mode, kind,
                    median.perSecond(), sorted.get(0).perSecond(), sorted.get(sorted.size() - 1).perSecond(),
                    median.p50() / 1000.0, median.p99() / 1000.0, runs.stream().mapToLong(Result::unexpected).sum());
        }
    }

    private final HttpClient client;
    private final int port;
    private final List<String> tokens;
    private final int expectedStatus;
    private final int connections;
    private final Histogram latencies = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
    private final CountDownLatch finished;
    private volatile boolean measuring;
    private volatile boolean stopping;
    private long expected;
    private long unexpected;

    private RepollLoad(HttpClient client, int port, List<String> tokens, int expectedStatus, int connections) {
        this.client = client;
        this.port = port;
        this.tokens = tokens;
        this.expectedStatus = expectedStatus;
        this.connections = connections;
        this.finished = new CountDownLatch(connections);
    }

    static Result run(int port, List<String> tokens, int expectedStatus, int connections, Duration warmup,
            Duration measure) throws InterruptedException {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1));
        try {
            HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true),
                    new PoolOptions().setHttp1MaxSize(connections));
            RepollLoad load = new RepollLoad(client, port, tokens, expectedStatus, connections);
            vertx.runOnContext(ignored -> {
                for (int i = 0; i < connections; i++) {
                    load.next(i, i);
                }
            });
            Thread.sleep(warmup.toMillis());
            long[] start = new long[2];
            vertx.runOnContext(ignored -> {
                load.latencies.reset();
                load.expected = 0;
                load.unexpected = 0;
                load.measuring = true;
                start[0] = System.nanoTime();
            });
            Thread.sleep(measure.toMillis());
            CountDownLatch read = new CountDownLatch(1);
            long[] counts = new long[2];
            Histogram copy = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
            vertx.runOnContext(ignored -> {
                load.measuring = false;
                start[1] = System.nanoTime();
                counts[0] = load.expected;
                counts[1] = load.unexpected;
                copy.add(load.latencies);
                read.countDown();
            });
            read.await();
            load.stopping = true;
            load.finished.await(30, TimeUnit.SECONDS);
            double seconds = (start[1] - start[0]) / 1e9;
            return new Result((counts[0] + counts[1]) / seconds, counts[0], counts[1],
                    copy.getValueAtPercentile(50), copy.getValueAtPercentile(99));
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().join();
        }
    }

    private void next(int connection, int tokenIndex) {
        if (stopping) {
            finished.countDown();
            return;
        }
        long sent = System.nanoTime();
        String token = tokens.get(tokenIndex % tokens.size());
        client.request(new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(port).setURI(LP)
                .putHeader("Authorization", "Bearer " + token))
                .compose(request -> request.send().compose(response -> response.body().map(body -> response.statusCode())))
                .onComplete(answer -> {
                    if (measuring) {
                        latencies.recordValue(Math.min(TimeUnit.SECONDS.toMicros(10), (System.nanoTime() - sent) / 1000));
                        if (answer.succeeded() && answer.result() == expectedStatus) {
                            expected++;
                        } else {
                            unexpected++;
                        }
                    }
                    next(connection, tokenIndex + connections);
                });
    }
}
