package io.outpost.load.soak;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import org.HdrHistogram.Recorder;

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
 * The soak's game clients: each holds a long poll for its player on one notification-service instance and polls
 * again from the returned cursor; a poll that fails or is refused is sent again after 1 s, to the next instance (as
 * a client behind a Service reaches another pod). Every notification's message is "{@code number sentNanos}": its
 * number goes to the {@link SoakLedger}, its age to the latency recorder.
 */
final class SoakPollers implements AutoCloseable {

    private static final String LP = "/notification/v1/player/me/stream/notification/lp";
    private static final int SOURCES = 8;
    private static final int PLAYERS_PER_CLIENT = 32;

    private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    private final HttpClient[] clients;
    private final SoakLedger ledger;
    private final Recorder latency = new Recorder(3);
    private final int[] turn;
    final AtomicLong refused = new AtomicLong();
    private volatile List<Integer> ports;
    private volatile boolean running = true;

    SoakPollers(int players, List<Integer> ports, SoakLedger ledger) {
        this.ports = List.copyOf(ports);
        this.ledger = ledger;
        this.turn = new int[players];
        clients = new HttpClient[Math.max(SOURCES, (players + PLAYERS_PER_CLIENT - 1) / PLAYERS_PER_CLIENT)];
        for (int i = 0; i < clients.length; i++) {
            clients[i] = vertx.createHttpClient(new HttpClientOptions().setLocalAddress("127.0.0." + (i % SOURCES + 2))
                    .setKeepAlive(true).setIdleTimeout(0).setConnectTimeout(5_000),
                    new PoolOptions().setHttp1MaxSize(players / clients.length + 2).setMaxWaitQueueSize(-1));
        }
    }

    /** The instances polls go to from now on (one was replaced). */
    void ports(List<Integer> now) {
        ports = List.copyOf(now);
    }

    /** Starts the poll loop of player {@code index}, from its earliest notification. */
    void hold(int index, UUID player, String token, String cursor) {
        if (!running) {
            return;
        }
        List<Integer> now = ports;
        int port = now.get(Math.floorMod(index + turn[index], now.size()));
        String uri = LP + "?deadline=30&max_page_size=100" + (cursor == null ? "&offset_reset_strategy=earliest"
                : "&exclude_before=" + cursor);
        clients[index % clients.length].request(new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1")
                .setPort(port).setURI(uri).setHeaders(MultiMap.caseInsensitiveMultiMap()
                        .add("Authorization", "Bearer " + token)).setIdleTimeout(0))
                .compose(request -> request.send().compose(response -> response.body().map(body -> {
                    if (response.statusCode() != 200) {
                        throw new IllegalStateException(response.statusCode() + " " + body);
                    }
                    return body.toJsonObject();
                })))
                .onSuccess(page -> {
                    long now2 = System.nanoTime();
                    JsonArray notifications = page.getJsonArray("notifications");
                    for (int i = 0; i < notifications.size(); i++) {
                        JsonObject n = notifications.getJsonObject(i);
                        String[] parts = n.getString("message").split(" ");
                        ledger.received(index, Integer.parseInt(parts[0]));
                        latency.recordValue(Math.max(0, (now2 - Long.parseLong(parts[1])) / 1000));
                    }
                    hold(index, player, token, page.getString("cursor"));
                })
                .onFailure(failure -> {
                    refused.incrementAndGet();
                    turn[index]++;
                    vertx.setTimer(1000, id -> hold(index, player, token, cursor));
                });
    }

    /** Delivery latencies (microseconds) since the previous call. */
    org.HdrHistogram.Histogram latencies() {
        return latency.getIntervalHistogram();
    }

    @Override
    public void close() {
        running = false;
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }
}
