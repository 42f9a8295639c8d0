package io.outpost.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.UUID;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.outpost.testsupport.RawHttp;
import io.outpost.testsupport.local.OutpostStack;

/**
 * No spelling of a path reaches a service's {@code /q/…} (auth-service's metrics label every registered client)
 * through the gateway, and each packaged service refuses such a path on its own port too, whatever proxy stands
 * before it. Raw request lines, as {@code curl --path-as-is} sends them: HTTP client libraries normalise a path.
 */
class RequestPathEndToEndTest {

    private static OutpostStack stack;
    private static int gateway;

    @BeforeAll
    static void start() {
        stack = E2eStack.get();
        gateway = URI.create(stack.gatewayUrl()).getPort();
    }

    private static String get(int port, String target) {
        return RawHttp.get(port, target, "");
    }

    private static void assertNoMetrics(String answer) {
        assertThat(answer).doesNotContain("# TYPE").doesNotContain("client_id").doesNotContain("\"status\"");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "/users/../q/metrics | dot-segment",
        "/users/v2/../../q/health | dot-segment",
        "/users/v1/publickeys/../../../q/metrics?x=1 | dot-segment",
        "/notification/%2e%2e/q/metrics | dot-segment",
        "/.well-known/.%2E/q/metrics | dot-segment",
        "/users/..;/q/metrics | dot-segment",
        "/users//../q/metrics | dot-segment",
        "/v1/history/..%2fq/health | encoded slash",
        "/v1/history/..%5Cq/health | encoded backslash",
        "/.well-known/..\\q\\metrics | backslash",
        "/users/%252e%252e/q/metrics | 'double-encoded dot, slash or backslash'",
        "http://127.0.0.1/users/../q/metrics | not origin-form",
    })
    void theGatewayRefusesAPathWithMoreThanOneReading(String target, String fault) {
        String answer = get(gateway, target);
        assertThat(answer).as(target).startsWith("HTTP/1.1 400 ")
                .endsWith("\r\n\r\n{\"error_code\":\"invalid_path\",\"desc\":\"Invalid path: " + fault + "\"}");
        assertNoMetrics(answer);
    }

    /** A service's own paths are under no public prefix. */
    @ParameterizedTest
    @ValueSource(strings = { "/q/metrics", "/q/health/ready", "//q/metrics", "/q/metrics/..%2F..%2Fusers" })
    void noServicePathIsRouted(String target) {
        String answer = get(gateway, target);
        assertThat(answer).as(target).startsWith("HTTP/1.1 40");
        assertNoMetrics(answer);
    }

    @Test
    void thePublicPathsStillReachTheirServices() {
        assertThat(get(gateway, "/.well-known/openid-configuration")).startsWith("HTTP/1.1 200 ")
                .contains("\"issuer\":\"" + stack.gatewayUrl() + "\"");
        assertThat(get(gateway, "/users/v1/publickeys")).startsWith("HTTP/1.1 200 ").contains("\"keys\"");
        // answered by the services themselves: no token
        assertThat(get(gateway, "/notification/v1/player/me/stream/notification/lp?deadline=0"))
                .startsWith("HTTP/1.1 403 ").contains("\"auth_success\":false");
        assertThat(get(gateway, "/v1/history/sandbox/" + UUID.randomUUID() + "/role?cursor=0"))
                .startsWith("HTTP/1.1 403 ").contains("\"auth_success\":false");
    }

    /**
     * On each service's own port, such a path is 422 at {@code ["path"]}, not the {@code /q/…} it normalises to:
     * {@code /q/metrics/..%2F..%2Fusers} is what ingress-nginx routes to auth-service as {@code /users}.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "auth-service | /users/../q/metrics | dot-segment",
        "auth-service | /q/metrics/..%2F..%2Fusers | encoded slash",
        "notification-service | /notification/%2e%2e/q/metrics | dot-segment",
        "history-service | /v1/history/..;/../q/health | dot-segment",
    })
    void eachServiceRefusesItOnItsOwnPort(String service, String target, String fault) {
        String answer = get(stack.service(service).port(), target);
        assertThat(answer).as(target).startsWith("HTTP/1.1 422 ").endsWith("\r\n\r\n{\"detail\":[{\"loc\":[\"path\"],"
                + "\"msg\":\"Invalid path: " + fault + "\",\"type\":\"json_invalid\"}]}");
        assertNoMetrics(answer);
    }

    /** Probes and scrapes go to the services' ports directly, and are served. */
    @ParameterizedTest
    @ValueSource(strings = { "auth-service", "notification-service", "history-service" })
    void probesAndScrapesStillWork(String service) {
        int port = stack.service(service).port();
        assertThat(get(port, "/q/health/ready")).startsWith("HTTP/1.1 200 ");
        assertThat(get(port, "/q/metrics")).startsWith("HTTP/1.1 200 ").contains("# TYPE ");
    }
}
