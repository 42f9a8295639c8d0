package io.outpost.load.history;

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
final class LatencyProbe {

    record Result(String name, long requests, double p50, double p90, double p99, double max, double perSecond,
            int bodyBytes) {
        String row() {
            return String.format("| %s | %,d | %.2f | %.2f | %.2f | %.2f | %,.0f | %,d |", name, requests, p50, p90, p99,
                    max, perSecond, bodyBytes);
        }
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final String token;

    LatencyProbe(String token) {
        this.token = token;
    }

    HttpResponse<String> get(String url) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(30)).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(url + " answered " + response.statusCode() + ": " + response.body());
        }
        return response;
    }

    Result measure(String name, String url, int warmup, int requests, Duration deadline)
            throws IOException, InterruptedException {
        for (int i = 0; i < warmup; i++) {
            get(url);
        }
        Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(30), 3);
        long end = System.nanoTime() + deadline.toNanos();
        long started = System.nanoTime();
        int bytes = 0;
        int done = 0;
        while (done < requests && System.nanoTime() < end) {
            long t0 = System.nanoTime();
            bytes = get(url).body().length();
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
