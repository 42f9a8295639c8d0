package io.outpost.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Which request paths the gateway and the services refuse, and why; every path Outpost serves passes. */
class RequestPathsTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "/users/../q/metrics | dot-segment",
        "/users/./v2/oauth/token | dot-segment",
        "/users/v2/oauth/token/.. | dot-segment",
        "/users/v2/oauth/token/. | dot-segment",
        "/.. | dot-segment",
        "/users//../q/metrics | dot-segment",
        "/users/v2/../../q/health | dot-segment",
        "/notification/%2e%2e/q/metrics | dot-segment",
        "/notification/%2E%2E/q/metrics | dot-segment",
        "/notification/.%2e/q/metrics | dot-segment",
        "/notification/%2e./q/metrics | dot-segment",
        "/notification/%2e/q/metrics | dot-segment",
        "/users/..;/q/metrics | dot-segment",
        "/users/..;x=1/q/metrics | dot-segment",
        "/users/.%2e;/q/metrics | dot-segment",
        "/users/.; | dot-segment",
        "/v1/history/..%2fq/health | encoded slash",
        "/v1/history%2F..%2Fq/health | encoded slash",
        "/users\\..\\q\\metrics | backslash",
        "/users/%5c../q | encoded backslash",
        "/users/%5C | encoded backslash",
        "/users/%252e%252e/q/metrics | 'double-encoded dot, slash or backslash'",
        "/users/%252E | 'double-encoded dot, slash or backslash'",
        "/users/..%252fq | 'double-encoded dot, slash or backslash'",
        "/users/%255c | 'double-encoded dot, slash or backslash'",
    })
    void refusesWhatAnotherComponentMayReadAsAnotherPath(String path, String fault) {
        assertThat(RequestPaths.fault(path)).isEqualTo(fault);
    }

    @ParameterizedTest
    @ValueSource(strings = { "/", "", "/users/v2/oauth/token", "/.well-known/openid-configuration",
        "/notification/v1/player/me/stream/notification/lp", "/v1/history/sandbox/3f2b8c1e-0d4a-4c5e-9f6a-1b2c3d4e5f60/role",
        "/q/health/ready", "/q/metrics", "/users/v1/admin/clients/e2e.game~1", "/users/...", "/users/.x", "/users/x.",
        "/users/..x", "/users/%2e%2e%2e", "/users/a%2eb", "/users/%25", "/users/%252", "/users/%2525", "/users/%",
        "/users/%2", "/users/%zz", "/users/;..", "//q/metrics", "/users/x;y", "/users/caf%C3%A9", "/users/%2\uFF25" })
    void passesEveryOtherPath(String path) {
        assertThat(RequestPaths.fault(path)).isNull();
    }

    /** The path is what precedes the query, in origin-form and absolute-form; other forms have none to refuse. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', nullValues = "null", value = {
        "/users/x?a=../b&c=%2f%5c\\ | null",
        "/users/%2e?x | dot-segment",
        "/users/x/..?x | dot-segment",
        "/users/x#/../y?z | dot-segment",
        "http://host/../q/metrics?x | dot-segment",
        "http://host/users/%2f | encoded slash",
        "http://host/users | null",
        "https://host:8080 | null",
        "http://host?a=/../b | null",
        "* | null",
        "host:443 | null",
        "users/../q | null",
    })
    void thePathIsWhatPrecedesTheQueryInOriginOrAbsoluteForm(String target, String fault) {
        assertThat(RequestPaths.fault(target)).isEqualTo(fault);
    }
}
