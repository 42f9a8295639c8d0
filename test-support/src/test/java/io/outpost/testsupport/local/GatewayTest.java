package io.outpost.testsupport.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.outpost.model.Limits;
import io.outpost.testsupport.RawHttp;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;

/** The gateway routes each prefix to its service, holds slow answers, and refuses unknown paths with a 404. */
class GatewayTest {

    private static Vertx vertx;
    private static Gateway gateway;
    /** The same routes with bounds of one second on receiving a request's head and its body. */
    private static Gateway impatient;
    private static final AtomicInteger AUTH_REQUESTS = new AtomicInteger();
    private static final AtomicInteger HELD_REQUESTS = new AtomicInteger();
    /** When the notification stand-in last sent a held answer ({@link System#nanoTime()}). */
    private static final AtomicLong HELD_ANSWERED = new AtomicLong();
    private static Map<String, Integer> routes;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        int auth = upstream("auth", 0);
        int notification = upstream("notification", 1500);
        int history = upstream("history", 0);
        routes = Gateway.outpostRoutes(auth, notification, history);
        gateway = new Gateway(vertx, routes);
        gateway.listen("127.0.0.1", 0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        impatient = new Gateway(vertx, Gateway.outpostRoutes(auth, notification, history), Duration.ofSeconds(1),
                Duration.ofSeconds(1));
        impatient.listen("127.0.0.1", 0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /**
     * A stand-in service answering "name path x-forwarded-for" (and the other forwarding headers, and the size of
     * a body) after {@code delayMs}; a path with "early" is answered 403 at once, its body unread, and the connection
     * closed soon after (Quarkus answers a body over its limit with a 413, then closes at once).
     */
    private static int upstream(String name, long delayMs) throws Exception {
        HttpServer server = vertx.createHttpServer(new HttpServerOptions()
                .setMaxInitialLineLength(Limits.REQUEST_LINE_MAX_BYTES)
                .setMaxHeaderSize(Limits.REQUEST_HEADERS_MAX_BYTES)).requestHandler(request -> {
            if (name.equals("auth")) {
                AUTH_REQUESTS.incrementAndGet();
            }
            if (request.uri().contains("dies")) { // the service's process gone with the request read
                request.body().onSuccess(body -> request.connection().close());
                return;
            }
            if (request.uri().contains("early")) {
                request.response().setStatusCode(403).end("early")
                        .onComplete(v -> vertx.setTimer(200, t -> request.connection().close()));
                return;
            }
            String address = request.getHeader("x-svc-client-addr");
            String answer = name + " " + request.uri() + " " + request.getHeader("X-Forwarded-For")
                    + (request.uri().contains("echo") ? " proto=" + request.getHeader("X-Forwarded-Proto") + " host="
                            + request.getHeader("X-Forwarded-Host") + " forwarded=" + request.getHeader("Forwarded") : "")
                    + (address == null ? "" : " address-bytes="
                            + HexFormat.of().formatHex(address.getBytes(StandardCharsets.ISO_8859_1)));
            request.body().onSuccess(body -> {
                String text = answer + (body.length() > 0 ? " bytes=" + body.length() : "");
                if (delayMs == 0) {
                    request.response().end(text);
                } else {
                    HELD_REQUESTS.incrementAndGet();
                    vertx.setTimer(delayMs, t -> {
                        HELD_ANSWERED.set(System.nanoTime());
                        request.response().end(text);
                    });
                }
            });
        }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        return server.actualPort();
    }

    @AfterAll
    static void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static HttpResponse<String> get(String pathAndQuery) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + pathAndQuery))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void routesEachPrefixToItsServiceWithPathAndQueryIntact() throws Exception {
        assertThat(get("/users/v2/oauth/token?a=1").body()).isEqualTo("auth /users/v2/oauth/token?a=1 127.0.0.1");
        assertThat(get("/.well-known/openid-configuration").body()).startsWith("auth /.well-known/");
        assertThat(get("/v1/history/sandbox/x/role?cursor=0").body()).startsWith("history /v1/history/sandbox/x/role?cursor=0");
    }

    @Test
    void tellsTheServiceWhoCalledAndHowReplacingWhatTheCallerClaims() throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + gateway.port() + "/users/echo"))
                .header("X-Forwarded-For", "203.0.113.66").header("X-Forwarded-Proto", "https")
                .header("X-Forwarded-Host", "evil.example").header("Forwarded", "for=203.0.113.66;proto=https")
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.body()).isEqualTo("auth /users/echo 127.0.0.1 proto=http host=127.0.0.1:" + gateway.port()
                + " forwarded=null");
    }

    @Test
    void holdsASlowAnswerUntilItComes() throws Exception {
        HttpResponse<String> held = get("/notification/v1/player/me/stream/notification/lp?deadline=1");
        assertThat(held.statusCode()).isEqualTo(200);
        assertThat(held.body()).startsWith("notification /notification/v1/player/me/stream/notification/lp");
    }

    /** A service that goes away without answering a request it read whole (killed): 502 at once, not a hang. */
    @Test
    void aServiceThatDiesWithoutAnsweringIsA502() throws Exception {
        HttpResponse<String> died = get("/v1/history/dies");
        assertThat(died.statusCode()).isEqualTo(502);
        assertThat(died.body()).isEmpty();
        assertThat(get("/v1/history/after").statusCode()).as("the next request").isEqualTo(200);
    }

    @Test
    void unknownPrefixIsA404WithAnErrorBody() throws Exception {
        HttpResponse<String> response = get("/admin/secrets");
        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.body()).contains("\"error_code\":\"not_found\"");
        assertThat(get("/usersx").statusCode()).isEqualTo(404);
    }

    /** One raw request, {@code GET <target> HTTP/1.1} plus {@code moreHeaders} (CRLF-ended lines), and its answer. */
    private static String rawGet(String target, String moreHeaders) {
        return RawHttp.get(gateway.port(), target, moreHeaders);
    }

    /** A history target whose request line is exactly {@code bytes} long. */
    private static String targetForALineOf(int bytes) {
        String target = "/v1/history/sandbox/x/role?cursor=0&pad=";
        return target + "p".repeat(bytes - "GET ".length() - target.length() - " HTTP/1.1".length());
    }

    @Test
    void passesWhatTheServicesReadAndRefusesMoreAsTheyWould() {
        String longest = targetForALineOf(Limits.REQUEST_LINE_MAX_BYTES);
        String answer = rawGet(longest, "");
        assertThat(answer).startsWith("HTTP/1.1 200 ").contains("history " + longest + " 127.0.0.1");
        // Vert.x cannot tell the version of a line it did not read: its 414 speaks HTTP/1.0
        assertThat(rawGet(targetForALineOf(Limits.REQUEST_LINE_MAX_BYTES + 1), "")).startsWith("HTTP/1.0 414 ");
        String pad = "x-pad: " + "h".repeat(Limits.REQUEST_HEADERS_MAX_BYTES - 1024) + "\r\n";
        assertThat(rawGet("/users/a", pad)).startsWith("HTTP/1.1 200 ").endsWith("auth /users/a 127.0.0.1");
        pad = "x-pad: " + "h".repeat(Limits.REQUEST_HEADERS_MAX_BYTES) + "\r\n";
        assertThat(rawGet("/users/a", pad)).startsWith("HTTP/1.1 431 ");
    }

    /**
     * A header value reaches the service byte for byte as the caller sent it, bytes that are not UTF-8 included:
     * the service, not the gateway, reads it as text and refuses what is not UTF-8 (422), as behind the ingress.
     */
    @Test
    void passesAHeaderValueByteForByte() {
        assertThat(rawGet("/users/a", "x-svc-client-addr: 203.0.113.\u00ff caf\u00c3\u00a9\r\n"))
                .startsWith("HTTP/1.1 200 ").endsWith("auth /users/a 127.0.0.1 address-bytes="
                        + HexFormat.of().formatHex("203.0.113.".getBytes(StandardCharsets.ISO_8859_1)) + "ff20636166c3a9");
    }

    /**
     * Writes {@code head} (request line and headers, CRLF-ended, without the blank line) to {@code port}, then the
     * blank line, then {@code body} from another thread (a write the gateway refuses to read fails silently); the
     * answer, read until the connection closes.
     */
    private static String send(int port, String head, byte[] body) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            out.write((head + "Host: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            Thread writer = new Thread(() -> {
                try {
                    out.write(body);
                    out.flush();
                } catch (IOException e) {
                    // refused before it was all read
                }
            });
            writer.start();
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            writer.join(10_000);
            return answer;
        }
    }

    private static byte[] chunked(int total, int chunk) {
        StringBuilder text = new StringBuilder();
        for (int sent = 0; sent < total; sent += chunk) {
            int size = Math.min(chunk, total - sent);
            text.append(Integer.toHexString(size)).append("\r\n").append("x".repeat(size)).append("\r\n");
        }
        return text.append("0\r\n\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void aBodyOverTheServicesLimitIsRefusedByTheGatewayWithA413() throws Exception {
        int before = AUTH_REQUESTS.get();
        // the audit's 5 MB token request: refused at once from its Content-Length, whatever of it is sent
        String answer = send(gateway.port(), "POST /users/v2/oauth/token HTTP/1.1\r\nContent-Length: 5000000\r\n",
                new byte[1_000_000]);
        assertThat(answer).startsWith("HTTP/1.1 413 ").contains("content-length: 0");
        answer = send(gateway.port(), "POST /users/v2/oauth/token HTTP/1.1\r\nContent-Length: "
                + (Gateway.AUTH_MAX_BODY_BYTES + 1) + "\r\n", new byte[0]);
        assertThat(answer).startsWith("HTTP/1.1 413 ");
        assertThat(AUTH_REQUESTS.get()).as("no request said too long reached the service").isEqualTo(before);
        // streamed in chunks, with no length said: refused when the bytes pass the limit
        answer = send(gateway.port(), "POST /users/v2/oauth/token HTTP/1.1\r\nTransfer-Encoding: chunked\r\n",
                chunked(1_000_000, 16 * 1024));
        assertThat(answer).startsWith("HTTP/1.1 413 ");
        answer = send(gateway.port(), "POST /users/v2/oauth/token HTTP/1.1\r\nTransfer-Encoding: chunked\r\n",
                chunked((int) Gateway.AUTH_MAX_BODY_BYTES + 1, 1000));
        assertThat(answer).startsWith("HTTP/1.1 413 ");
        // history's limit is its own: 1 MiB
        answer = send(gateway.port(), "POST /v1/history/x HTTP/1.1\r\nContent-Length: "
                + (Gateway.MAX_BODY_BYTES + 1) + "\r\n", new byte[0]);
        assertThat(answer).startsWith("HTTP/1.1 413 ");
    }

    @Test
    void aBodyUpToTheServicesLimitPassesWhole() throws Exception {
        int limit = (int) Gateway.AUTH_MAX_BODY_BYTES;
        String answer = send(gateway.port(), "POST /users/v2/oauth/token HTTP/1.1\r\nContent-Length: " + limit
                + "\r\nConnection: close\r\n", new byte[limit]);
        assertThat(answer).startsWith("HTTP/1.1 200 ").endsWith("auth /users/v2/oauth/token 127.0.0.1 bytes=" + limit);
        answer = send(gateway.port(), "POST /users/v2/oauth/token HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
                + "Connection: close\r\n", chunked(limit, 1000));
        assertThat(answer).startsWith("HTTP/1.1 200 ").endsWith(" bytes=" + limit);
        answer = send(gateway.port(), "POST /v1/history/x HTTP/1.1\r\nContent-Length: 1000000\r\n"
                + "Connection: close\r\n", new byte[1_000_000]);
        assertThat(answer).startsWith("HTTP/1.1 200 ").endsWith("history /v1/history/x 127.0.0.1 bytes=1000000");
    }

    @Test
    void aServiceThatAnswersBeforeTheBodyEndsHasItsAnswerRelayed() throws Exception {
        String answer = sendInTwoParts(gateway.port(), "POST /v1/history/early HTTP/1.1\r\nContent-Length: 1000000\r\n",
                new byte[1_000_000]);
        assertThat(answer).startsWith("HTTP/1.1 403 ").containsIgnoringCase("connection: close").endsWith("early");
        answer = sendInTwoParts(gateway.port(), "POST /v1/history/early HTTP/1.1\r\nTransfer-Encoding: chunked\r\n",
                chunked(1_000_000, 16 * 1024));
        assertThat(answer).startsWith("HTTP/1.1 403 ").endsWith("early");
    }

    /**
     * Sends the head and the body's first 16 KiB, reads the whole answer (by its Content-Length), and only then
     * the rest of the body: so the service has certainly answered before the body ended, however slowly the
     * gateway reached it. Returns the answer, after checking that the gateway then closes the connection.
     */
    private static String sendInTwoParts(int port, String head, byte[] body) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            out.write((head + "Host: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(body, 0, 16 * 1024);
            out.flush();
            java.io.InputStream in = socket.getInputStream();
            StringBuilder answer = new StringBuilder();
            while (answer.indexOf("\r\n\r\n") < 0) {
                int b = in.read();
                assertThat(b).as("an answer before the body ends: " + answer).isNotEqualTo(-1);
                answer.append((char) b);
            }
            java.util.regex.Matcher length = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)")
                    .matcher(answer);
            assertThat(length.find()).as(answer.toString()).isTrue();
            answer.append(new String(in.readNBytes(Integer.parseInt(length.group(1))), StandardCharsets.UTF_8));
            try {
                out.write(body, 16 * 1024, body.length - 16 * 1024);
                out.flush();
            } catch (IOException closed) {
                // the gateway may close before it has dropped the whole rest
            }
            long start = System.nanoTime();
            try {
                in.readAllBytes();
            } catch (java.net.SocketException reset) {
                // closed with bytes unread: also closed
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("closed after the answer")
                    .isLessThan(Duration.ofSeconds(10));
            return answer.toString();
        }
    }

    @Test
    void aRequestWhoseHeadDoesNotArriveIsClosedWithinItsBound() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", impatient.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("POST /users/v2/oauth/token HTTP/1.1\r\nHost: x\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1));
            long start = System.nanoTime();
            assertThat(socket.getInputStream().read()).as("closed without an answer").isEqualTo(-1);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(500), Duration.ofSeconds(5));
        }
        // a kept-alive connection is closed as soon after its last answer
        try (Socket socket = new Socket("127.0.0.1", impatient.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET /users/a HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 200 ").endsWith("auth /users/a 127.0.0.1");
        }
    }

    @Test
    void aBodyThatDoesNotArriveIsA408WithinItsBound() throws Exception {
        long start = System.nanoTime();
        // the audit's request: 100 bytes said, one sent
        String answer = send(impatient.port(), "POST /users/v2/oauth/token HTTP/1.1\r\nContent-Length: 100\r\n",
                "{".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(answer).startsWith("HTTP/1.1 408 ")
                .endsWith("{\"error_code\":\"request_timeout\",\"desc\":\"Request Timeout\"}");
        answer = send(impatient.port(), "POST /users/v2/oauth/token HTTP/1.1\r\nTransfer-Encoding: chunked\r\n",
                "5\r\nab".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(answer).startsWith("HTTP/1.1 408 ");
    }

    @Test
    void aHeldAnswerOutlastsTheBoundsOnReceivingTheRequest() throws Exception {
        // the notification stand-in holds its answer 1.5 s: longer than both bounds of the impatient gateway
        String answer = send(impatient.port(), "GET /notification/v1/player/me/stream/notification/lp?deadline=1 HTTP/1.1"
                + "\r\nConnection: close\r\n", new byte[0]);
        assertThat(answer).startsWith("HTTP/1.1 200 ").contains("notification /notification/v1/player/me/stream");
        answer = send(impatient.port(), "POST /notification/v1/x HTTP/1.1\r\nContent-Length: 2\r\nConnection: close\r\n",
                "{}".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(answer).startsWith("HTTP/1.1 200 ").endsWith("bytes=2");
    }

    /**
     * What stopping the local stack relies on (OutpostStack.close: the services first, then the gateway): the
     * gateway is idle only once the answers in flight are relayed, and connections waiting for a request — one
     * silent, one with half a head — do not hold it up.
     */
    @Test
    void isIdleOnlyOnceTheAnswersInFlightAreRelayed() throws Exception {
        Gateway draining = new Gateway(vertx, routes);
        draining.listen("127.0.0.1", 0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        try (Socket silent = new Socket("127.0.0.1", draining.port());
                Socket halfHead = new Socket("127.0.0.1", draining.port())) {
            halfHead.getOutputStream().write("GET /users/a HTTP/1.1\r\n".getBytes(StandardCharsets.ISO_8859_1));
            int held = HELD_REQUESTS.get();
            // the notification stand-in holds its answer 1.5 s
            var answer = HTTP.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + draining.port()
                    + "/notification/v1/player/me/stream/notification/lp?deadline=1")).timeout(Duration.ofSeconds(20))
                    .build(), HttpResponse.BodyHandlers.ofString());
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (HELD_REQUESTS.get() == held && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(HELD_REQUESTS.get()).as("the held request reached the service").isGreaterThan(held);
            Future<Long> idleAt = draining.idle(Duration.ofSeconds(60)).map(v -> System.nanoTime());

            assertThat(answer.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            // within seconds, not at the 60 s bound: the two connections waiting for a request do not count
            long idle = idleAt.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(idle - HELD_ANSWERED.get()).as("idle after the service answered").isPositive();
        } finally {
            draining.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /** The bytes of a Quarkus memory size ({@code 64K}, {@code 10240K}). */
    private static long bytes(String size) {
        return Long.parseLong(size.substring(0, size.length() - 1)) * switch (size.charAt(size.length() - 1)) {
            case 'K' -> 1024;
            case 'M' -> 1024 * 1024;
            default -> throw new IllegalArgumentException(size);
        };
    }

    private static String property(String file, String name) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(Path.of("..").resolve(file))) {
            properties.load(reader);
        }
        return properties.getProperty(name);
    }

    @Test
    void bodyLimitsAreTheServicesOwn() throws IOException {
        String setting = "quarkus.http.limits.max-body-size";
        assertThat(Gateway.MAX_BODY_BYTES).isEqualTo(bytes(property(
                "service-support/src/main/resources/META-INF/microprofile-config.properties", setting)));
        assertThat(Gateway.AUTH_MAX_BODY_BYTES).isEqualTo(bytes(property(
                "auth-service/src/main/resources/application.properties", setting)));
        assertThat(Gateway.maxBodyBytes("/users")).isEqualTo(Gateway.AUTH_MAX_BODY_BYTES);
        assertThat(Gateway.maxBodyBytes("/.well-known")).isEqualTo(Gateway.AUTH_MAX_BODY_BYTES);
        assertThat(Gateway.maxBodyBytes("/notification")).isEqualTo(Gateway.MAX_BODY_BYTES);
        assertThat(Gateway.maxBodyBytes("/v1/history")).isEqualTo(Gateway.MAX_BODY_BYTES);
    }

    @Test
    void timeoutsExceedTheLongestPoll() {
        assertThat(Gateway.READ_TIMEOUT_SECONDS).isGreaterThan(900);
        assertThat(Gateway.outpostRoutes(1, 2, 3)).isEqualTo(Map.of("/users", 1, "/.well-known", 1,
                "/notification", 2, "/v1/history", 3));
    }
}
