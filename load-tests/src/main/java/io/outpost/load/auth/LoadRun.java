package io.outpost.load.auth;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;

/**
 * A closed-loop load of token grants: {@code concurrency} keep-alive connections, each sending its next request
 * as soon as the previous answer is read. One Vert.x event loop drives them all, so the histogram needs no locks.
 */
final class LoadRun {

    private static final Buffer BODY = Buffer.buffer("{\"grant_type\":\"client_credentials\"}");

    /** What one measured period gave. Latencies in microseconds. */
    record Result(int concurrency, double grantsPerSecond, long ok, long notOk, long p50, long p99, long p999) {

        @Override
        public String toString() {
            return String.format("%,.0f grants/s, p50 %.2f ms, p99 %.2f ms, p99.9 %s, non-200 %d",
                    grantsPerSecond, p50 / 1000.0, p99 / 1000.0,
                    p999 < 0 ? "–" : String.format("%.2f ms", p999 / 1000.0), notOk);
        }

        /** The Markdown row of the median run (by throughput), with the range of all runs. */
        static String medianRow(int concurrency, List<Result> runs) {
            List<Result> sorted = runs.stream().sorted(Comparator.comparingDouble(Result::grantsPerSecond)).toList();
            Result median = sorted.get(sorted.size() / 2);
            return String.format("| %d | %,.0f (%,.0f–%,.0f) | %.2f ms | %.2f ms | %s | %d |", concurrency,
                    median.grantsPerSecond(), sorted.get(0).grantsPerSecond(),
                    sorted.get(sorted.size() - 1).grantsPerSecond(), median.p50() / 1000.0, median.p99() / 1000.0,
                    median.p999() < 0 ? "–" : String.format("%.2f ms", median.p999() / 1000.0),
                    runs.stream().mapToLong(Result::notOk).sum());
        }
    }

    private final HttpClient client;
    private final RequestOptions request;
    private final Histogram latencies = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
    private volatile boolean measuring;
    private volatile boolean stopping;
    private long ok;
    private long notOk;
    private final CountDownLatch finished;

    private LoadRun(HttpClient client, RequestOptions request, int concurrency) {
        this.client = client;
        this.request = request;
        this.finished = new CountDownLatch(concurrency);
    }

    static Result run(String host, int port, String authorization, int concurrency, Duration warmup, Duration measure)
            throws InterruptedException {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1));
        try {
            HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setPipelining(false)
                    .setTcpNoDelay(true), new PoolOptions().setHttp1MaxSize(concurrency));
            RequestOptions request = new RequestOptions().setMethod(HttpMethod.POST).setHost(host).setPort(port)
                    .setURI("/users/v2/oauth/token").putHeader("Authorization", authorization)
                    .putHeader("Content-Type", "application/json");
            LoadRun run = new LoadRun(client, request, concurrency);
            vertx.runOnContext(ignored -> {
                for (int i = 0; i < concurrency; i++) {
                    run.next();
                }
            });
            Thread.sleep(warmup.toMillis());
            vertx.runOnContext(ignored -> {
                run.latencies.reset();
                run.ok = 0;
                run.notOk = 0;
                run.measuring = true;
            });
            long start = System.nanoTime();
            Thread.sleep(measure.toMillis());
            CountDownLatch read = new CountDownLatch(1);
            long[] counts = new long[2];
            Histogram[] snapshot = new Histogram[1];
            vertx.runOnContext(ignored -> {
                run.measuring = false;
                run.stopping = true;
                counts[0] = run.ok;
                counts[1] = run.notOk;
                snapshot[0] = run.latencies.copy();
                read.countDown();
            });
            read.await();
            double seconds = (System.nanoTime() - start) / 1e9;
            run.finished.await(30, TimeUnit.SECONDS);
            Histogram h = snapshot[0];
            return new Result(concurrency, counts[0] / seconds, counts[0], counts[1], h.getValueAtPercentile(50),
                    h.getValueAtPercentile(99), h.getValueAtPercentile(99.9));
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().join();
        }
    }

    private void next() {
        if (stopping) {
            finished.countDown();
            return;
        }
        long start = System.nanoTime();
        client.request(request)
                .compose(req -> req.send(BODY))
                .compose(response -> response.body().map(body -> response.statusCode()))
                .onComplete(outcome -> {
                    if (measuring) {
                        latencies.recordValue(Math.min((System.nanoTime() - start) / 1000, latencies.getHighestTrackableValue()));
                        if (outcome.succeeded() && outcome.result() == 200) {
                            ok++;
                        } else {
                            notOk++;
                        }
                    }
                    next();
                });
    }
}
