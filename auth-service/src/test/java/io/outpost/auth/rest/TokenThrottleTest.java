package io.outpost.auth.rest;

import static io.outpost.auth.TestClients.GRANT;
import static io.outpost.auth.TestClients.TOKEN_PATH;
import static io.outpost.auth.TestClients.basic;
import static io.outpost.auth.TestClients.tokenRequest;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;

/**
 * Throttling of repeated failures (DESIGN §2) at the default limits: 10 failures per client id and 30 per client
 * address in a one-minute window.
 */
@QuarkusTest
class TokenThrottleTest {

    @Test
    void throttlesAClientIdAfterTenFailuresButNotItsProvenSecret() {
        // the real client got a token before the attack: its secret is proven in this process
        given().header("x-svc-client-addr", "192.0.2.1").header("Authorization", basic("test-locked", "test-locked-secret"))
                .contentType(ContentType.JSON).body(GRANT).post(TOKEN_PATH).then().statusCode(200);
        for (int i = 0; i < 10; i++) { // each guess from another address: only the per-client count trips
            TokenAuthFailureTest.assertInvalidClient(tokenRequest("test-locked", "guess-" + i));
        }
        assertThrottled(tokenRequest("test-locked", "guess-10").post(TOKEN_PATH));
        assertThrottled(tokenRequest("test-locked", "another-guess").post(TOKEN_PATH));
        // successful clients are not slowed: the proven secret still gets its token at once
        given().header("x-svc-client-addr", "192.0.2.1").header("Authorization", basic("test-locked", "test-locked-secret"))
                .contentType(ContentType.JSON).body(GRANT).post(TOKEN_PATH).then().statusCode(200);
        // and other clients are untouched
        tokenRequest("test-backend", "test-backend-secret").post(TOKEN_PATH).then().statusCode(200);
    }

    @Test
    void throttlesAClientAddressAfterThirtyFailures() {
        String address = "198.51.100.7";
        for (int i = 0; i < 30; i++) {
            TokenAuthFailureTest.assertInvalidClient(given().header("x-svc-client-addr", address)
                    .contentType(ContentType.JSON).body(GRANT));
        }
        assertThrottled(given().header("x-svc-client-addr", address).header("Authorization", basic("unknown-x", "y"))
                .contentType(ContentType.JSON).body(GRANT).post(TOKEN_PATH));
        // another address is not affected
        TokenAuthFailureTest.assertInvalidClient(given().header("x-svc-client-addr", "198.51.100.8")
                .contentType(ContentType.JSON).body(GRANT));
    }

    private static void assertThrottled(Response response) {
        assertThat(response.statusCode()).isEqualTo(429);
        long retryAfter = Long.parseLong(response.header("Retry-After"));
        assertThat(retryAfter).isBetween(1L, 60L);
        assertThat(response.asString()).isEqualTo("{\"error_code\":\"too_many_requests\",\"desc\":\"Too many failed "
                + "attempts; retry after " + retryAfter + " s\"}");
    }
}
