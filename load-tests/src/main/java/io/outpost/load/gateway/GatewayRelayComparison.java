package io.outpost.load.gateway;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.HdrHistogram.Histogram;

import io.outpost.testsupport.local.Gateway;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.httpproxy.HttpProxy;
import io.vertx.httpproxy.ProxyContext;
import io.vertx.httpproxy.ProxyInterceptor;
import io.vertx.httpproxy.ProxyResponse;

/**
 * What relaying costs in the local gateway against {@code io.vertx:vertx-http-proxy} doing the same relaying with
 * only routing and the forwarded headers around it (none of the limits, timeouts and refusals {@code GatewayTest}
 * pins): the same upstream (answers 200 with a 200-byte body at once), the same closed loop of keep-alive
 * connections, each relay measured in turn, alternated. Loopback only; bounded in time.
 *
 * <pre>
 * java -cp "$CP" io.outpost.load.gateway.GatewayRelayComparison   # -Dconnections=64 -Dwarmup=10 -Dseconds=15 -Drounds=2
 * </pre>
 */
public final class GatewayRelayComparison {

    private static final int CONNECTIONS = Integer.getInteger("connections", 64);
    private static final int WARMUP = Integer.getInteger("warmup", 10);
    private static final int SECONDS = Integer.getInteger("seconds", 15);
    private static final int ROUNDS = Integer.getInteger("rounds", 2);
    private static final String PATH = "/notification/v1/player/me/notification";

    public static void main(String[] args) throws Exception {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
        Vertx clients = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
        Buffer body = Buffer.buffer("{\"notifications\":[],\"cursor\":\"" + "x".repeat(160) + "\"}");
        HttpServer upstream = await(vertx.createHttpServer()
                .requestHandler(req -> req.response().end(body)).listen(0, "127.0.0.1"));
        int origin = upstream.actualPort();

        Gateway gateway = new Gateway(vertx, Gateway.outpostRoutes(origin, origin, origin));
        await(gateway.listen("127.0.0.1", 0));

        HttpClient proxyClient = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
                new PoolOptions().setHttp1MaxSize(CONNECTIONS * 2));
        HttpProxy proxy = HttpProxy.reverseProxy(proxyClient)
                .originSelector(req -> req.path().startsWith("/notification/")
                        ? Future.succeededFuture(SocketAddress.inetSocketAddress(origin, "127.0.0.1"))
                        : Future.failedFuture("no route"))
                .addInterceptor(new ProxyInterceptor() {
                    @Override
                    public Future<ProxyResponse> handleProxyRequest(ProxyContext context) {
                        var headers = context.request().headers();
                        headers.remove("Forwarded");
                        headers.set("X-Forwarded-For", context.request().proxiedRequest().remoteAddress().hostAddress());
                        headers.set("X-Forwarded-Proto", "http");
                        return context.sendRequest();
                    }
                });
        HttpServer proxied = await(vertx.createHttpServer().requestHandler(proxy).listen(0, "127.0.0.1"));

        Map<String, Integer> relays = Map.of("Gateway", gateway.port(), "vertx-http-proxy", proxied.actualPort());
        System.out.printf("relay comparison: %d connections, %d s warm-up, %d s measured, %d rounds%n", CONNECTIONS,
                WARMUP, SECONDS, ROUNDS);
        System.out.println("| relay | round | requests/s | p50 ms | p99 ms | p99.9 ms |");
        System.out.println("|---|---|---|---|---|---|");
        for (int round = 1; round <= ROUNDS; round++) {
            for (String name : new String[] { "Gateway", "vertx-http-proxy" }) {
                int port = relays.get(name);
                run(clients, port, WARMUP, null);
                Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
                long done = run(clients, port, SECONDS, h);
                System.out.printf("| %s | %d | %,.0f | %.2f | %.2f | %.2f |%n", name, round, done / (double) SECONDS,
                        h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(99) / 1e6,
                        h.getValueAtPercentile(99.9) / 1e6);
            }
        }
        clients.close();
        vertx.close();
    }

    /** A closed loop of {@link #CONNECTIONS} for {@code seconds}; answers the requests completed. */
    private static long run(Vertx clients, int port, int seconds, Histogram latencies) throws Exception {
        HttpClient client = clients.createHttpClient(new HttpClientOptions().setKeepAlive(true)
                .setDefaultHost("127.0.0.1").setDefaultPort(port), new PoolOptions().setHttp1MaxSize(CONNECTIONS));
        AtomicBoolean running = new AtomicBoolean(true);
        long[] completed = new long[1];
        CompletableFuture<Void> stopped = new CompletableFuture<>();
        int[] open = { CONNECTIONS };
        clients.runOnContext(ignored -> {
            for (int i = 0; i < CONNECTIONS; i++) {
                next(client, running, latencies, completed, () -> {
                    if (--open[0] == 0) {
                        stopped.complete(null);
                    }
                });
            }
        });
        Thread.sleep(seconds * 1000L);
        running.set(false);
        stopped.get(30, TimeUnit.SECONDS);
        await(client.close());
        return completed[0];
    }

    private static void next(HttpClient client, AtomicBoolean running, Histogram latencies, long[] completed,
            Runnable ended) {
        if (!running.get()) {
            ended.run();
            return;
        }
        long start = System.nanoTime();
        client.request(HttpMethod.GET, PATH).compose(req -> req.send()).compose(resp -> {
            if (resp.statusCode() != 200) {
                throw new IllegalStateException("answered " + resp.statusCode());
            }
            return resp.body();
        }).onComplete(result -> {
            if (result.failed()) {
                System.err.println("request failed: " + result.cause());
                ended.run();
                return;
            }
            if (latencies != null) {
                latencies.recordValue(Math.min(System.nanoTime() - start, TimeUnit.SECONDS.toNanos(10)));
            }
            completed[0]++;
            next(client, running, latencies, completed, ended);
        });
    }

    private static <T> T await(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
