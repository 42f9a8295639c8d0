package io.outpost.testsupport.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.outpost.model.Limits;
import io.outpost.testsupport.RawHttp;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;

/** The gateway routes each prefix to its service, holds slow answers, and refuses unknown paths with a 404. */
class GatewayTest {

    private static Vertx vertx;
    private static Gateway gateway;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        int auth = upstream("auth", 0);
        int notification = upstream("notification", 1500);
        int history = upstream("history", 0);
        gateway = new Gateway(vertx, Gateway.outpostRoutes(auth, notification, history));
        gateway.listen("127.0.0.1", 0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** A stand-in service answering "name path x-forwarded-for" (and the other forwarding headers) after {@code delayMs}. */
    private static int upstream(String name, long delayMs) throws Exception {
        HttpServer server = vertx.createHttpServer(new HttpServerOptions()
                .setMaxInitialLineLength(Limits.REQUEST_LINE_MAX_BYTES)
                .setMaxHeaderSize(Limits.REQUEST_HEADERS_MAX_BYTES)).requestHandler(request -> {
            String body = name + " " + request.uri() + " " + request.getHeader("X-Forwarded-For")
                    + (request.uri().contains("echo") ? " proto=" + request.getHeader("X-Forwarded-Proto") + " host="
                            + request.getHeader("X-Forwarded-Host") + " forwarded=" + request.getHeader("Forwarded") : "");
            if (delayMs == 0) {
                request.response().end(body);
            } else {
                vertx.setTimer(delayMs, t -> request.response().end(body));
            }
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

    @Test
    void timeoutsExceedTheLongestPoll() {
        assertThat(Gateway.READ_TIMEOUT_SECONDS).isGreaterThan(900);
        assertThat(Gateway.outpostRoutes(1, 2, 3)).isEqualTo(Map.of("/users", 1, "/.well-known", 1,
                "/notification", 2, "/v1/history", 3));
    }
}
