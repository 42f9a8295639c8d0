package io.outpost.auth.rest;

import static io.outpost.auth.TestClients.GRANT;
import static io.outpost.auth.TestClients.TOKEN_PATH;
import static io.outpost.auth.TestClients.basic;
import static io.outpost.auth.TestClients.tokenRequest;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.outpost.auth.TestClients;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/**
 * Throttling of repeated failures (DESIGN §2) at the default limits: 10 failures per client id and 30 per client
 * address in a one-minute window; a client id over its budget is rationed (2 slow checks a second), never locked.
 * The client address is the peer's, or the one a trusted proxy reports ({@code X-Forwarded-For} from loopback, as
 * the gateway and ingress send it): these tests play that proxy.
 */
@QuarkusTest
class TokenThrottleTest {

    @Test
    void aClientUnderAttackStillGetsItsTokenWithItsRealSecretOnAReplicaThatNeverProvedIt() throws Exception {
        // test-locked has not authenticated on this replica yet (as after a restart, a scale-out or an admin change)
        for (int i = 0; i < 10; i++) { // each guess from another address: only the per-client count trips
            TokenAuthFailureTest.assertInvalidClient(tokenRequest("test-locked", "guess-" + i));
        }
        // over its budget, the real secret is still checked, and gets its token
        real().then().statusCode(200);
        // guesses are rationed: most of an immediate burst is answered 429 without a slow check (sent at once, as an
        // attacker does: one after the other, each waiting for its slow check, they would be spread over seconds
        // on a slow machine, and the ration would let more of them through)
        List<Integer> burst = new ArrayList<>();
        ExecutorService senders = Executors.newFixedThreadPool(6);
        try {
            CountDownLatch ready = new CountDownLatch(6);
            List<Future<Response>> sent = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                RequestSpecification request = tokenRequest("test-locked", "burst-" + i);
                sent.add(senders.submit(() -> {
                    ready.countDown();
                    ready.await();
                    return request.post(TOKEN_PATH);
                }));
            }
            for (Future<Response> each : sent) {
                Response response = each.get(60, TimeUnit.SECONDS);
                burst.add(response.statusCode());
                if (response.statusCode() == 429) {
                    assertThrottled(response);
                }
            }
        } finally {
            senders.shutdownNow();
        }
        assertThat(burst).allMatch(status -> status == 401 || status == 429);
        assertThat(burst.stream().filter(status -> status == 429).count()).isGreaterThanOrEqualTo(4);
        // the proven secret is never slowed, and other clients are untouched
        real().then().statusCode(200);
        tokenRequest("test-backend", "test-backend-secret").post(TOKEN_PATH).then().statusCode(200);
    }

    @Test
    void throttlesAClientAddressAfterThirtyFailures() {
        String address = TestClients.ownAddress();
        for (int i = 0; i < 30; i++) {
            TokenAuthFailureTest.assertInvalidClient(given().header("X-Forwarded-For", address)
                    .contentType(ContentType.JSON).body(GRANT));
        }
        assertThrottled(given().header("X-Forwarded-For", address).header("Authorization", basic("unknown-x", "y"))
                .contentType(ContentType.JSON).body(GRANT).post(TOKEN_PATH));
        // another address is not affected
        TokenAuthFailureTest.assertInvalidClient(given().header("X-Forwarded-For", TestClients.ownAddress())
                .contentType(ContentType.JSON).body(GRANT));
    }

    private static Response real() {
        return given().header("X-Forwarded-For", TestClients.ownAddress())
                .header("Authorization", basic("test-locked", "test-locked-secret"))
                .contentType(ContentType.JSON).body(GRANT).post(TOKEN_PATH);
    }

    private static void assertThrottled(Response response) {
        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.header("Cache-Control")).isEqualTo("no-store");
        long retryAfter = Long.parseLong(response.header("Retry-After"));
        assertThat(retryAfter).isBetween(1L, 60L);
        assertThat(response.asString()).isEqualTo("{\"error_code\":\"too_many_requests\",\"desc\":\"Too many failed "
                + "attempts; retry after " + retryAfter + " s\"}");
    }
}
