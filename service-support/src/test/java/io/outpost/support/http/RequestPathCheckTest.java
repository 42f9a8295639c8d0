package io.outpost.support.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.outpost.testsupport.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;

/**
 * A path another component may read as another path is 422 at {@code ["path"]} on every route, health and metrics
 * included (RequestUriCheck), never served as the path Vert.x normalises it to; every path the services serve
 * still is. Raw request lines: HTTP client libraries normalise a path before they send it.
 */
@QuarkusTest
class RequestPathCheckTest {

    private static final String SANDBOX = "/probe/3f2b8c1e-0d4a-4c5e-9f6a-1b2c3d4e5f60";

    private static String get(String target) {
        return RawHttp.get(RestAssured.port, target, "");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "/probe/../q/metrics | dot-segment",
        "/probe/x/../../q/health/ready | dot-segment",
        SANDBOX + "/.. | dot-segment",
        "/./q/metrics | dot-segment",
        "/probe/%2e%2e/q/metrics | dot-segment",
        "/probe/.%2E/q/metrics?x=1 | dot-segment",
        "/probe/..;/q/metrics | dot-segment",
        "/q/health/..;x=1/ready | dot-segment",
        "http://localhost/probe/../q/metrics | dot-segment",
        "/probe/..%2fq/metrics | encoded slash",
        "/q/metrics/..%2F..%2Fprobe | encoded slash",
        "/probe/..%5Cq/metrics | encoded backslash",
        "/probe\\..\\q\\metrics | backslash",
        "/probe/%252e%252e/q/metrics | 'double-encoded dot, slash or backslash'",
    })
    void aPathWithMoreThanOneReadingIs422AtPath(String target, String fault) {
        String answer = get(target);
        assertThat(answer).as(target).startsWith("HTTP/1.1 422 ").endsWith("\r\n\r\n{\"detail\":[{\"loc\":[\"path\"],"
                + "\"msg\":\"Invalid path: " + fault + "\",\"type\":\"json_invalid\"}]}");
    }

    /** Probes and scrapes, the endpoints' own paths, dots within a segment and in the query: all served. */
    @Test
    void everyPathTheServicesServeIsServed() {
        assertThat(get("/q/health/ready")).startsWith("HTTP/1.1 200 ");
        assertThat(get("/q/health/live")).startsWith("HTTP/1.1 200 ");
        assertThat(get("/q/metrics")).startsWith("HTTP/1.1 200 ").contains("# TYPE ");
        assertThat(get(SANDBOX + "?cursor=../..%2f")).startsWith("HTTP/1.1 200 ").contains("\"cursor\":\"../../\"");
        assertThat(get("/probe/query?a=%2e%2e")).startsWith("HTTP/1.1 200 ").endsWith("{\"a\":[\"..\"]}");
        assertThat(get("/probe/a..b")).startsWith("HTTP/1.1 422 ").contains("\"loc\":[\"path\",\"sandbox_id\"]");
    }
}
