package io.outpost.testsupport.local;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.outpost.model.Limits;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.HostAndPort;
import io.vertx.httpproxy.HttpProxy;
import io.vertx.httpproxy.ProxyContext;
import io.vertx.httpproxy.ProxyInterceptor;
import io.vertx.httpproxy.ProxyResponse;

/**
 * The local stack's stand-in for the Kubernetes Ingress: routes by path prefix to the services with
 * vertx-http-proxy, keeps long polls open well past their 900 s maximum, and tells the services who called and how,
 * as ingress-nginx does: {@code X-Forwarded-For} (the caller's address), {@code X-Forwarded-Proto} and
 * {@code X-Forwarded-Host}, each set anew (whatever the caller sent is replaced: it is the edge), and a
 * {@code Forwarded} header dropped. The services believe these headers only from loopback, where the gateway
 * connects from. Unknown prefixes get a 404 with the services' error body.
 */
public final class Gateway {

    /** Upstream connections may sit idle this long: above the longest poll (900 s) plus slack. */
    static final int READ_TIMEOUT_SECONDS = 960;
    /** Held polls each occupy an upstream connection. */
    static final int MAX_UPSTREAM_CONNECTIONS = 20_000;

    private final Vertx vertx;
    private final Map<String, HttpProxy> routes = new LinkedHashMap<>();
    private HttpServer server;

    /** @param upstreams path prefix → port on 127.0.0.1, matched in order */
    public Gateway(Vertx vertx, Map<String, Integer> upstreams) {
        this.vertx = vertx;
        HttpClient client = vertx.createHttpClient(new HttpClientOptions()
                .setKeepAlive(true)
                .setIdleTimeout(READ_TIMEOUT_SECONDS).setIdleTimeoutUnit(TimeUnit.SECONDS),
                new PoolOptions().setHttp1MaxSize(MAX_UPSTREAM_CONNECTIONS));
        upstreams.forEach((prefix, port) -> routes.put(prefix,
                HttpProxy.reverseProxy(client).origin(port, "127.0.0.1").addInterceptor(FORWARDED_HEADERS)));
    }

    /** The routes of DESIGN §7 onto the given service ports. */
    public static Map<String, Integer> outpostRoutes(int auth, int notification, int history) {
        Map<String, Integer> routes = new LinkedHashMap<>();
        routes.put("/users", auth);
        routes.put("/.well-known", auth);
        routes.put("/notification", notification);
        routes.put("/v1/history", history);
        return routes;
    }

    public Future<HttpServer> listen(String host, int port) {
        return vertx.createHttpServer(new HttpServerOptions().setIdleTimeout(READ_TIMEOUT_SECONDS)
                .setIdleTimeoutUnit(TimeUnit.SECONDS)
                // the services' limits, so that the gateway refuses (414, 431) exactly what they would
                .setMaxInitialLineLength(Limits.REQUEST_LINE_MAX_BYTES)
                .setMaxHeaderSize(Limits.REQUEST_HEADERS_MAX_BYTES))
                .requestHandler(this::route)
                .listen(port, host)
                .onSuccess(started -> server = started);
    }

    public int port() {
        return server.actualPort();
    }

    public Future<Void> close() {
        return server == null ? Future.succeededFuture() : server.close();
    }

    private void route(HttpServerRequest request) {
        String path = request.path();
        for (Map.Entry<String, HttpProxy> route : routes.entrySet()) {
            String prefix = route.getKey();
            if (path.equals(prefix) || path.startsWith(prefix + "/")) {
                route.getValue().handle(request);
                return;
            }
        }
        request.response().setStatusCode(404).putHeader("Content-Type", "application/json")
                .end("{\"error_code\":\"not_found\",\"desc\":\"No service serves " + escape(path) + "\"}");
    }

    private static String escape(String path) {
        return path.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static final ProxyInterceptor FORWARDED_HEADERS = new ProxyInterceptor() {
        @Override
        public Future<ProxyResponse> handleProxyRequest(ProxyContext context) {
            HttpServerRequest incoming = context.request().proxiedRequest();
            MultiMap headers = context.request().headers();
            headers.remove("Forwarded");
            headers.remove("X-Forwarded-Port");
            headers.remove("X-Forwarded-Prefix");
            headers.set("X-Forwarded-Proto", incoming.isSSL() ? "https" : "http");
            HostAndPort host = incoming.authority();
            if (host == null) {
                headers.remove("X-Forwarded-Host");
            } else {
                headers.set("X-Forwarded-Host", host.port() < 0 ? host.host() : host.host() + ":" + host.port());
            }
            if (incoming.remoteAddress() == null) {
                headers.remove("X-Forwarded-For");
            } else {
                headers.set("X-Forwarded-For", incoming.remoteAddress().hostAddress());
            }
            return context.sendRequest();
        }
    };
}
