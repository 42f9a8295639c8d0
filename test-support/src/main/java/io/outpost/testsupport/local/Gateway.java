package io.outpost.testsupport.local;

import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.outpost.model.Limits;
import io.outpost.model.RequestPaths;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.HostAndPort;

/**
 * The local stack's stand-in for the Kubernetes Ingress: routes by path prefix to the services, keeps long polls
 * open well past their 900 s maximum, and tells the services who called and how, as ingress-nginx does:
 * {@code X-Forwarded-For} (the caller's address), {@code X-Forwarded-Proto} and {@code X-Forwarded-Host}, each set
 * anew (whatever the caller sent is replaced: it is the edge), and a {@code Forwarded} header dropped. The services
 * believe these headers only from loopback, where the gateway connects from.
 * <p>
 * It routes only the public prefixes ({@link #outpostRoutes}), each matched on whole segments of the path as it was
 * sent ({@code /users} does not match {@code /usersX}), and forwards that same target: no {@code /q/…} path of a
 * service (health, metrics) is reachable through it. Before it routes, it refuses with a 400
 * ({@code {"error_code":"invalid_path",…}}) a target that is not origin-form ({@code /…}: the absolute-form
 * {@code http://host/…} is for forward proxies, {@code *} and {@code host:443} name no resource) and a path that
 * another component could read as another path ({@link RequestPaths}: dot-segments, escaped or not, also before a
 * {@code ;}; escaped slashes and backslashes, once or twice; a backslash), which the services refuse too (422).
 * A path no prefix matches ({@code //q/metrics}) is a 404 with the services' error body. A prefix is served by one
 * instance or by several in turn ({@link #addInstance}, {@link #removeInstance}, as a Service's endpoints); a request
 * whose connection an instance refuses goes to the next one (nothing of it was sent), and only when every one
 * refuses is it answered 502.
 * <p>
 * It refuses what the services would refuse, itself, before anything reaches them: a request line or headers over
 * {@link Limits} (414, 431, by the decoder), a body over the target service's {@code max-body-size} (413, bodiless
 * as the services' own: at once when {@code Content-Length} says so, else when the streamed chunks pass it). A
 * service that answers before it has read the whole body has its answer relayed (and the connection closed, the rest
 * of the body unread). Slow clients are bounded as nginx bounds them: a request's head must arrive within
 * {@link #REQUEST_HEAD_TIMEOUT} of the connection opening or of the previous answer (which also bounds a kept-alive
 * connection's idle time), its body within {@link #REQUEST_BODY_TIMEOUT} of its head (408, then the connection is
 * closed). A held answer is not bounded by these: only by {@link #READ_TIMEOUT_SECONDS}.
 */
public final class Gateway {

    /** Upstream connections may sit idle this long: above the longest poll (900 s) plus slack. */
    static final int READ_TIMEOUT_SECONDS = 960;
    /** Held polls each occupy an upstream connection. */
    static final int MAX_UPSTREAM_CONNECTIONS = 20_000;
    /** nginx's {@code client_header_timeout} default: a head must arrive within this, and a kept-alive connection idles no longer. */
    public static final Duration REQUEST_HEAD_TIMEOUT = Duration.ofSeconds(60);
    /** A whole body must arrive within this of its head (nginx bounds the time between two reads: 60 s). */
    public static final Duration REQUEST_BODY_TIMEOUT = Duration.ofSeconds(60);
    /** auth-service's {@code quarkus.http.limits.max-body-size} (its application.properties). */
    static final long AUTH_MAX_BODY_BYTES = 64 * 1024;
    /** The other services' {@code quarkus.http.limits.max-body-size} (service-support's shared configuration). */
    static final long MAX_BODY_BYTES = 1024 * 1024;
    /** The path prefixes served by auth-service, whose body limit is {@link #AUTH_MAX_BODY_BYTES}. */
    static final Set<String> AUTH_PREFIXES = Set.of("/users", "/.well-known");
    /**
     * After refusing a request whose body is still coming, the gateway reads (and drops) it this long before it
     * closes: a connection closed with unread bytes is reset, and the reset can overtake the answer at the client.
     */
    static final long LINGER_MILLIS = 2_000;

    /** Why a target that is not a path ({@code *}, {@code host:443}, {@code http://host/…}) is refused. */
    static final String NOT_ORIGIN_FORM = "not origin-form";

    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-authenticate",
            "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade");
    /** Not passed on: hop-by-hop, the upstream's own Host, an Expect the gateway answers itself, forwarding headers it sets. */
    private static final Set<String> NOT_FORWARDED = Set.of("host", "expect", "forwarded", "x-forwarded-port",
            "x-forwarded-prefix", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host");

    private final Vertx vertx;
    private final HttpClient client;
    private final Upstreams routes;
    private final long headTimeoutMillis;
    private final long bodyTimeoutMillis;
    private final Map<HttpConnection, Long> headTimers = new ConcurrentHashMap<>();
    /** Every open client connection: those in {@link #headTimers} wait for a request, the others carry one. */
    private final Set<HttpConnection> connections = ConcurrentHashMap.newKeySet();
    private HttpServer server;

    /** @param upstreams path prefix → port on 127.0.0.1, matched in order */
    public Gateway(Vertx vertx, Map<String, Integer> upstreams) {
        this(vertx, upstreams, REQUEST_HEAD_TIMEOUT, REQUEST_BODY_TIMEOUT);
    }

    /** With other bounds on receiving a request (tests). */
    public Gateway(Vertx vertx, Map<String, Integer> upstreams, Duration headTimeout, Duration bodyTimeout) {
        this.vertx = vertx;
        this.client = vertx.createHttpClient(new HttpClientOptions()
                .setKeepAlive(true)
                .setIdleTimeout(READ_TIMEOUT_SECONDS).setIdleTimeoutUnit(TimeUnit.SECONDS),
                new PoolOptions().setHttp1MaxSize(MAX_UPSTREAM_CONNECTIONS));
        this.routes = new Upstreams(upstreams);
        this.headTimeoutMillis = headTimeout.toMillis();
        this.bodyTimeoutMillis = bodyTimeout.toMillis();
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

    /** The largest body the service behind {@code prefix} reads. */
    static long maxBodyBytes(String prefix) {
        return AUTH_PREFIXES.contains(prefix) ? AUTH_MAX_BODY_BYTES : MAX_BODY_BYTES;
    }

    public Future<HttpServer> listen(String host, int port) {
        return vertx.createHttpServer(new HttpServerOptions().setIdleTimeout(READ_TIMEOUT_SECONDS)
                .setIdleTimeoutUnit(TimeUnit.SECONDS)
                // the services' limits, so that the gateway refuses (414, 431) exactly what they would
                .setMaxInitialLineLength(Limits.REQUEST_LINE_MAX_BYTES)
                .setMaxHeaderSize(Limits.REQUEST_HEADERS_MAX_BYTES)
                // HTTP/1.1 only: while Vert.x looks for an h2c preface it has no connection to hand over yet
                .setHttp2ClearTextEnabled(false))
                .connectionHandler(this::opened)
                .requestHandler(this::route)
                .listen(port, host)
                .onSuccess(started -> server = started);
    }

    public int port() {
        return server.actualPort();
    }

    /**
     * Routes to the instance on {@code port} too, beside the one on {@code beside}: requests for their prefixes go
     * to each in turn, as to a Service's endpoints.
     */
    public void addInstance(int beside, int port) {
        routes.add(beside, port);
    }

    /**
     * Sends no new request to the instance on {@code port} (unless it is the only one of a prefix), as when its
     * pod's endpoint is removed at the start of its termination; requests it holds are left to it.
     */
    public void removeInstance(int port) {
        routes.remove(port);
    }

    public Future<Void> close() {
        return server == null ? Future.succeededFuture() : server.close();
    }

    /**
     * Completes once no answer is in flight — every open client connection waits for its next request — or after
     * {@code max}, whichever comes first. The local stack calls it after its services have stopped, before closing
     * the gateway, so that what they answered on their way out (held polls) reaches the clients.
     */
    public Future<Void> idle(Duration max) {
        Promise<Void> idle = Promise.promise();
        whenIdle(idle, System.nanoTime() + max.toNanos());
        return idle.future();
    }

    private void whenIdle(Promise<Void> idle, long deadline) {
        if (headTimers.keySet().containsAll(connections) || System.nanoTime() - deadline >= 0) {
            idle.complete();
        } else {
            vertx.setTimer(20, t -> whenIdle(idle, deadline));
        }
    }

    private void opened(HttpConnection connection) {
        connections.add(connection);
        awaitHead(connection);
        connection.closeHandler(v -> {
            connections.remove(connection);
            Long timer = headTimers.remove(connection);
            if (timer != null) {
                vertx.cancelTimer(timer);
            }
        });
    }

    /** The next request's head must arrive within the bound, else the connection is closed (nothing to answer). */
    private void awaitHead(HttpConnection connection) {
        long timer = vertx.setTimer(headTimeoutMillis, t -> {
            if (headTimers.remove(connection, t)) {
                connection.close();
            }
        });
        Long previous = headTimers.put(connection, timer);
        if (previous != null) {
            vertx.cancelTimer(previous);
        }
    }

    private void route(HttpServerRequest request) {
        Long headTimer = headTimers.remove(request.connection());
        if (headTimer != null) {
            vertx.cancelTimer(headTimer);
        }
        request.response().endHandler(v -> {
            if (headTimers.containsKey(request.connection()) || !request.isEnded()) {
                return;
            }
            awaitHead(request.connection());
        });
        String target = request.uri();
        String fault = target.startsWith("/") ? RequestPaths.fault(target) : NOT_ORIGIN_FORM;
        if (fault != null) {
            answer(request, 400, "invalid_path", "Invalid path: " + fault);
            return;
        }
        String path = request.path();
        String prefix = routes.prefixOf(path);
        if (prefix != null) {
            new Exchange(request, prefix, maxBodyBytes(prefix)).start();
            return;
        }
        answer(request, 404, "not_found", "No service serves " + path);
    }

    /** The gateway's own refusal, in the body the services' refusals of the same kind have. */
    private static void answer(HttpServerRequest request, int status, String code, String desc) {
        request.response().setStatusCode(status).putHeader("Content-Type", "application/json")
                .end("{\"error_code\":\"" + code + "\",\"desc\":\"" + escape(desc) + "\"}");
    }

    private static String escape(String path) {
        return path.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    /** One request relayed to its service, and the answer back. */
    private final class Exchange {

        private final HttpServerRequest request;
        private final HttpServerResponse response;
        private final String prefix;
        /** Instances that refused this request's connection: the next one in turn is tried, as nginx's proxy_next_upstream error does. */
        private final Set<Integer> tried = new HashSet<>();
        private final long maxBody;
        private HttpClientRequest upstream;
        private long received;
        /** The client's answer is decided (relayed or the gateway's own): what more of the body comes is dropped. */
        private boolean answered;
        /** The service's answer has been relayed whole. */
        private boolean relayed;
        private long bodyTimer = -1;

        Exchange(HttpServerRequest request, String prefix, long maxBody) {
            this.request = request;
            this.response = request.response();
            this.prefix = prefix;
            this.maxBody = maxBody;
        }

        void start() {
            String transferEncoding = request.getHeader(HttpHeaders.TRANSFER_ENCODING);
            if (transferEncoding != null && !transferEncoding.trim().equalsIgnoreCase("chunked")) {
                refuse(400, null);
                return;
            }
            String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
            if (length != null && declaredLength(length) > maxBody) {
                refuse(413, null);
                return;
            }
            request.pause();
            request.handler(this::bodyPart);
            request.endHandler(v -> bodyEnded());
            bodyTimer = vertx.setTimer(bodyTimeoutMillis, t -> {
                bodyTimer = -1;
                refuse(408, "{\"error_code\":\"request_timeout\",\"desc\":\"Request Timeout\"}");
            });
            response.closeHandler(v -> {
                // the client has gone: so does the request upstream (a held poll is let go)
                cancelBodyTimer();
                if (upstream != null && !relayed) {
                    upstream.reset();
                }
            });
            connect();
        }

        /** Opens the request to the next instance in turn that has not refused it yet. */
        private void connect() {
            int port = routes.next(prefix, tried);
            if (port < 0) {
                refuse(502, null);
                return;
            }
            tried.add(port);
            client.request(new RequestOptions().setHost("127.0.0.1").setPort(port).setMethod(request.method())
                    .setURI(request.uri())).onComplete(this::send);
        }

        private void send(AsyncResult<HttpClientRequest> opened) {
            if (answered) {
                if (opened.succeeded()) {
                    opened.result().reset();
                }
                return;
            }
            if (opened.failed()) {
                connect(); // nothing was sent: another instance may take it
                return;
            }
            upstream = opened.result();
            MultiMap headers = upstream.headers();
            for (Map.Entry<String, String> header : request.headers()) {
                String name = header.getKey().toLowerCase(Locale.ROOT);
                if (!HOP_BY_HOP.contains(name) && !NOT_FORWARDED.contains(name)) {
                    headers.add(header.getKey(), header.getValue());
                }
            }
            forwardedHeaders(request, headers);
            if (request.getHeader(HttpHeaders.CONTENT_LENGTH) == null
                    && request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null) {
                upstream.setChunked(true);
            }
            upstream.response().onComplete(this::relay);
            if ("100-continue".equalsIgnoreCase(request.getHeader(HttpHeaders.EXPECT))) {
                response.writeContinue();
            }
            request.resume();
        }

        private void bodyPart(Buffer part) {
            if (answered) {
                return;
            }
            received += part.length();
            if (received > maxBody) {
                refuse(413, null);
                return;
            }
            upstream.write(part);
            if (upstream.writeQueueFull()) {
                request.pause();
                upstream.drainHandler(v -> request.resume());
            }
        }

        private void bodyEnded() {
            cancelBodyTimer();
            if (!answered) {
                upstream.end();
            }
        }

        private void relay(AsyncResult<HttpClientResponse> result) {
            if (answered) {
                return;
            }
            if (result.failed()) {
                refuse(502, null);
                return;
            }
            answered = true;
            HttpClientResponse answer = result.result();
            boolean early = !request.isEnded();
            response.setStatusCode(answer.statusCode()).setStatusMessage(answer.statusMessage());
            for (Map.Entry<String, String> header : answer.headers()) {
                if (!HOP_BY_HOP.contains(header.getKey().toLowerCase(Locale.ROOT))) {
                    response.headers().add(header.getKey(), header.getValue());
                }
            }
            if (answer.getHeader(HttpHeaders.CONTENT_LENGTH) == null && mayHaveBody(answer.statusCode())) {
                response.setChunked(true);
            }
            if (early) {
                // the service answered before the whole body was sent: relay its answer, drop the rest of the body
                cancelBodyTimer();
                response.putHeader(HttpHeaders.CONNECTION, "close");
                request.resume();
            }
            answer.pipeTo(response).onComplete(piped -> {
                relayed = piped.succeeded();
                if (early) {
                    // the request upstream never ended: that connection cannot serve another
                    upstream.connection().close();
                    closeAfterLinger();
                } else if (piped.failed()) {
                    upstream.reset();
                    request.connection().close();
                }
            });
        }

        /** Answers {@code status} (and {@code json}, if any) itself and closes the connection. */
        private void refuse(int status, String json) {
            cancelBodyTimer();
            boolean relaying = answered;
            answered = true;
            if (upstream != null && !relaying) {
                upstream.reset();
            }
            boolean started = relaying && response.headWritten();
            if (!request.isEnded()) { // a request read whole takes no handler: Vert.x would throw, and no answer left
                request.handler(dropped -> { });
                request.resume();
            }
            if (started || response.ended() || response.closed()) {
                request.connection().close();
                return;
            }
            response.setStatusCode(status).putHeader(HttpHeaders.CONNECTION, "close");
            if (json != null) {
                response.putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
            }
            response.end(json == null ? "" : json).onComplete(v -> closeAfterLinger());
        }

        /** Closes the connection once the client has sent its body, or after {@link #LINGER_MILLIS}. */
        private void closeAfterLinger() {
            HttpConnection connection = request.connection();
            if (request.isEnded()) {
                connection.close();
                return;
            }
            long timer = vertx.setTimer(LINGER_MILLIS, t -> connection.close());
            request.endHandler(v -> {
                vertx.cancelTimer(timer);
                connection.close();
            });
        }

        private boolean mayHaveBody(int status) {
            return status >= 200 && status != 204 && status != 304 && !"HEAD".equals(request.method().name());
        }

        private void cancelBodyTimer() {
            if (bodyTimer != -1) {
                vertx.cancelTimer(bodyTimer);
                bodyTimer = -1;
            }
        }
    }

    /** A Content-Length's value; one that is not a length (the decoder refuses those first) as too long. */
    private static long declaredLength(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    /** X-Forwarded-For/-Proto/-Host from the connection, as the ingress sets them; the caller's own are dropped. */
    private static void forwardedHeaders(HttpServerRequest incoming, MultiMap headers) {
        headers.set("X-Forwarded-Proto", incoming.isSSL() ? "https" : "http");
        HostAndPort host = incoming.authority();
        if (host != null) {
            headers.set("X-Forwarded-Host", host.port() < 0 ? host.host() : host.host() + ":" + host.port());
        }
        if (incoming.remoteAddress() != null) {
            headers.set("X-Forwarded-For", incoming.remoteAddress().hostAddress());
        }
    }
}
