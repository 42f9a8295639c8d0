package io.outpost.load.notification;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import org.HdrHistogram.Recorder;

import io.outpost.testsupport.IngressHeaders;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Game clients: each holds one long poll for its player, and polls again with the returned cursor as soon as it
 * is answered. Connections are spread over 127.0.0.2…127.0.0.9 so no source address runs out of ports.
 * A notification's message is the {@code System.nanoTime()} of its produce, so delivery latency is measured
 * in this one process.
 */
final class PollClients implements AutoCloseable {

    private static final String LP = "/notification/v1/player/me/stream/notification/lp";
    private static final int SOURCES = 8;
    /**
     * Players per HTTP client: a Vert.x 4 client pool looks through all its connections for a free one on every
     * request; with one pool of 1,250 connections per source address that search was the top frame of this
     * process's event loop.
     */
    private static final int PLAYERS_PER_CLIENT = 32;
    private static final long LAG_TICK_NANOS = 10_000_000;
    /**
     * {@code -Dclient.headers=ingress}: every poll carries what it would through an ingress-nginx controller
     * ({@link IngressHeaders}). Without it a poll carries {@code Host} and {@code Authorization}.
     */
    private static final boolean INGRESS_HEADERS = "ingress".equals(System.getProperty("client.headers"));

    private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    private final HttpClient[] clients;
    private final int port;
    private final Recorder latency = new Recorder(3);
    /** How late this process's event loop runs a 10 ms timer: when it lags, the latencies are the client's. */
    private final Recorder loopLag = new Recorder(3);
    final AtomicLong answered = new AtomicLong();
    final AtomicLong answeredEmpty = new AtomicLong();
    final AtomicLong delivered = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    private volatile boolean running = true;

    PollClients(int port, int maxConnections) {
        this.port = port;
        clients = new HttpClient[Math.max(SOURCES, (maxConnections + PLAYERS_PER_CLIENT - 1) / PLAYERS_PER_CLIENT)];
        for (int i = 0; i < clients.length; i++) {
            clients[i] = vertx.createHttpClient(new HttpClientOptions().setLocalAddress("127.0.0." + (i % SOURCES + 2))
                    .setKeepAlive(true).setIdleTimeout(0).setConnectTimeout(30_000),
                    new PoolOptions().setHttp1MaxSize(maxConnections / clients.length + 1).setMaxWaitQueueSize(-1));
        }
        tick(System.nanoTime() + LAG_TICK_NANOS);
    }

    private void tick(long due) {
        vertx.setTimer(LAG_TICK_NANOS / 1_000_000, id -> {
            long now = System.nanoTime();
            loopLag.recordValue(Math.max(0, (now - due) / 1000));
            if (running) {
                tick(now + LAG_TICK_NANOS);
            }
        });
    }

    /** A fresh map per request (the client owns what it is given): the ingress's headers if asked, and the token. */
    private static MultiMap headers(String token) {
        MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        if (INGRESS_HEADERS) {
            IngressHeaders.ALL.forEach(header -> headers.add(header.getKey(), header.getValue()));
        }
        return headers.add("Authorization", "Bearer " + token);
    }

    /** Starts the poll loop of one player. */
    void hold(int index, UUID player, String token, String cursor) {
        if (!running) {
            return;
        }
        String uri = LP + "?deadline=900&max_page_size=100" + (cursor == null ? "" : "&exclude_before=" + cursor);
        clients[index % clients.length].request(new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1")
                .setPort(port).setURI(uri).setHeaders(headers(token)).setIdleTimeout(0))
                .compose(request -> request.send().compose(response -> response.body().map(body -> {
                    if (response.statusCode() != 200) {
                        throw new IllegalStateException(response.statusCode() + " " + body);
                    }
                    return body.toJsonObject();
                })))
                .onSuccess(page -> {
                    answered.incrementAndGet();
                    if (page.getJsonArray("notifications").isEmpty()) {
                        answeredEmpty.incrementAndGet();
                    }
                    long now = System.nanoTime();
                    JsonArray notifications = page.getJsonArray("notifications");
                    for (int i = 0; i < notifications.size(); i++) {
                        JsonObject n = notifications.getJsonObject(i);
                        latency.recordValue(Math.max(0, (now - Long.parseLong(n.getString("message"))) / 1000));
                        delivered.incrementAndGet();
                    }
                    hold(index, player, token, page.getString("cursor"));
                })
                .onFailure(failure -> {
                    if (running && failed.incrementAndGet() <= 5) {
                        System.err.println("poll failed (retried in 1 s, as a client does): " + failure);
                    }
                    // a refused poll (503: retry shortly) is sent again, as a game client would
                    vertx.setTimer(1000, id -> hold(index, player, token, cursor));
                });
    }

    /** Delivery latencies (microseconds) recorded since the previous call. */
    org.HdrHistogram.Histogram latencies() {
        return latency.getIntervalHistogram();
    }

    /** How late the client's event loop ran its 10 ms timer (microseconds) since the previous call. */
    org.HdrHistogram.Histogram loopLags() {
        return loopLag.getIntervalHistogram();
    }

    /** Answers still arrive and are counted, but no poll is sent again. */
    void stopPolling() {
        running = false;
    }

    @Override
    public void close() {
        running = false;
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }
}
