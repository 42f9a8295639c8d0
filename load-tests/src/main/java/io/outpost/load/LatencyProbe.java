package io.outpost.load;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/**
 * One client, one keep-alive connection, one request at a time (closed loop): the latency of a request on an
 * otherwise idle service, from send to the whole body read. Bounded by a request count and a deadline.
 */
public final class LatencyProbe {

    public record Result(String name, long requests, double p50, double p90, double p99, double max,
            double perSecond, int bodyBytes) {
        public String row() {
            return String.format("| %s | %,d | %.2f | %.2f | %.2f | %.2f | %,.0f | %,d |", name, requests, p50, p90, p99,
                    max, perSecond, bodyBytes);
        }
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final String token;

    public LatencyProbe(String token) {
        this.token = token;
    }

    /** A GET that must answer 200. */
    public HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return get(url, null, 200);
    }

    /** A GET with {@code If-None-Match: ifNoneMatch} (when not null) that must answer {@code status}. */
    public HttpResponse<String> get(String url, String ifNoneMatch, int status) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(30));
        if (ifNoneMatch != null) {
            request.header("If-None-Match", ifNoneMatch);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != status) {
            throw new IOException(url + " answered " + response.statusCode() + ": " + response.body());
        }
        return response;
    }

    public Result measure(String name, String url, int warmup, int requests, Duration deadline)
            throws IOException, InterruptedException {
        return measure(name, url, null, 200, warmup, requests, deadline);
    }

    /** {@code requests} GETs one after the other (or until {@code deadline}), each answering {@code status}. */
    public Result measure(String name, String url, String ifNoneMatch, int status, int warmup, int requests,
            Duration deadline) throws IOException, InterruptedException {
        for (int i = 0; i < warmup; i++) {
            get(url, ifNoneMatch, status);
        }
        Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(30), 3);
        long end = System.nanoTime() + deadline.toNanos();
        long started = System.nanoTime();
        int bytes = 0;
        int done = 0;
        while (done < requests && System.nanoTime() < end) {
            long t0 = System.nanoTime();
            bytes = get(url, ifNoneMatch, status).body().length();
            histogram.recordValue(System.nanoTime() - t0);
            done++;
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        return new Result(name, done, ms(histogram, 50), ms(histogram, 90), ms(histogram, 99),
                histogram.getMaxValue() / 1e6, done / seconds, bytes);
    }

    private static double ms(Histogram histogram, double percentile) {
        return histogram.getValueAtPercentile(percentile) / 1e6;
    }
}
