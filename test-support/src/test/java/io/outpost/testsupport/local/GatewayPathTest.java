package io.outpost.testsupport.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.outpost.testsupport.RawHttp;
import io.vertx.core.Vertx;

/**
 * The gateway routes only the public prefixes, on whole segments of the path as sent, and refuses (400) before it
 * routes a target another component could read as another path: no spelling reaches a service's {@code /q/…}.
 * Raw request lines, as {@code curl --path-as-is} sends them: HTTP client libraries normalise a path first.
 */
class GatewayPathTest {

    private static Vertx vertx;
    private static Gateway gateway;
    /** Requests that reached any service stand-in. */
    private static final AtomicInteger FORWARDED = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        int auth = upstream("auth");
        gateway = new Gateway(vertx, Gateway.outpostRoutes(auth, upstream("notification"), upstream("history")));
        gateway.listen("127.0.0.1", 0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** A stand-in service answering "name target" (the request target as it arrived). */
    private static int upstream(String name) throws Exception {
        return vertx.createHttpServer().requestHandler(request -> {
            FORWARDED.incrementAndGet();
            request.response().end(name + " " + request.uri());
        }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).actualPort();
    }

    @AfterAll
    static void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static String get(String target) {
        return RawHttp.get(gateway.port(), target, "");
    }

    /** The answer is the gateway's own {@code status} with exactly {@code body}, and no service was asked. */
    private static void assertRefused(String target, String status, String body) {
        int before = FORWARDED.get();
        String answer = get(target);
        assertThat(answer).as(target).startsWith("HTTP/1.1 " + status + " ").endsWith("\r\n\r\n" + body);
        assertThat(FORWARDED.get()).as("%s reached a service", target).isEqualTo(before);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "/users/../q/metrics | dot-segment",
        "/users/v2/../../q/health | dot-segment",
        "/users//../q/metrics | dot-segment",
        "/.well-known/.. | dot-segment",
        "/users/./v2/oauth/token | dot-segment",
        "/notification/%2e%2e/q/metrics | dot-segment",
        "/notification/.%2E/q/metrics | dot-segment",
        "/users/..;/q/metrics | dot-segment",
        "/v1/history/..%2fq/health | encoded slash",
        "/users%2F..%2Fq/metrics | encoded slash",
        "/users/..\\q\\metrics | backslash",
        "/users/..%5cq/metrics | encoded backslash",
        "/users/%252e%252e/q/metrics | 'double-encoded dot, slash or backslash'",
    })
    void aPathAnotherComponentMayReadOtherwiseIsRefusedBeforeRouting(String target, String fault) {
        assertRefused(target, "400", "{\"error_code\":\"invalid_path\",\"desc\":\"Invalid path: " + fault + "\"}");
        assertRefused(target + "?deadline=0", "400",
                "{\"error_code\":\"invalid_path\",\"desc\":\"Invalid path: " + fault + "\"}");
    }

    /** Origin-form only: the absolute-form is what a client sends a forward proxy, and the others name no path. */
    @ParameterizedTest
    @ValueSource(strings = { "http://127.0.0.1/../q/metrics", "http://127.0.0.1/users/v2/oauth/token", "*",
        "127.0.0.1:443", "users/v2/oauth/token" })
    void aTargetThatIsNotOriginFormIsRefused(String target) {
        assertRefused(target, "400", "{\"error_code\":\"invalid_path\",\"desc\":\"Invalid path: not origin-form\"}");
    }

    /** Prefixes match whole segments, and none of a service's own paths ({@code /q/…}) is a public prefix. */
    @ParameterizedTest
    @ValueSource(strings = { "/q/metrics", "/q/health/ready", "//q/metrics", "/usersX/q/metrics", "/users%2e/q",
        "/%71/metrics", "/v1/historyX", "/notification-x", "/", "/Users/v2/oauth/token" })
    void aPathUnderNoPublicPrefixIsA404(String target) {
        assertRefused(target, "404", "{\"error_code\":\"not_found\",\"desc\":\"No service serves " + target + "\"}");
    }

    @Test
    void onlyThePublicPrefixesAreRouted() {
        assertThat(Gateway.outpostRoutes(1, 2, 3)).isEqualTo(Map.of("/users", 1, "/.well-known", 1,
                "/notification", 2, "/v1/history", 3));
    }

    /** What a client sends is forwarded as sent: dots inside a segment, a dot-segment in the query, an escape. */
    @Test
    void everyOtherPathIsForwardedAsSent() {
        for (String target : new String[] { "/users", "/users/v2/oauth/token?next=../q/metrics",
            "/.well-known/openid-configuration", "/users/v1/admin/clients/e2e.game...", "/v1/history/a%2eb/..x",
            "/notification/v1/player/me/stream/notification/lp;x" }) {
            String answer = get(target);
            assertThat(answer).as(target).startsWith("HTTP/1.1 200 ").endsWith(" " + target);
        }
    }
}
