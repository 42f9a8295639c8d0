package io.outpost.auth.admin;

import static io.outpost.auth.TestClients.ADMIN;
import static io.outpost.auth.TestClients.ADMIN_SECRET;
import static io.outpost.auth.TestClients.adminApi;
import static io.outpost.auth.TestClients.basic;
import static io.outpost.auth.TestClients.fromOwnAddress;
import static io.outpost.auth.TestClients.token;
import static io.outpost.auth.admin.TokenLifecycleTest.CLIENTS;
import static io.outpost.auth.admin.TokenLifecycleTest.REVOKE;
import static io.outpost.auth.admin.TokenLifecycleTest.introspect;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;

/**
 * A client's revocations are rationed (docs/auth.md, "Revocation"): a burst of 30, then one a second; past it a
 * mint-then-revoke loop is answered 429 {@code too_many_requests} with {@code Retry-After}.
 */
@QuarkusTest
class RevocationThrottleTest {

    private static final int BURST = 30;

    @Test
    void aMintThenRevokeLoopIsAnswered429PastItsBurst() {
        String id = "looping-" + UUID.randomUUID().toString().substring(0, 8);
        String secret = adminApi().auth().oauth2(token(ADMIN, ADMIN_SECRET)).contentType(ContentType.JSON)
                .body(Map.of("client_id", id, "permissions", List.of("sandbox:config:view"))).post(CLIENTS)
                .then().statusCode(201).extract().path("client_secret");
        String kept = token(id, secret);
        long started = System.nanoTime();
        Response refused = null;
        int accepted = 0;
        for (int i = 0; i < 200 && refused == null; i++) {
            Response response = revoke(id, secret, "not-a-token-" + i);
            if (response.statusCode() == 429) {
                refused = response;
            } else {
                assertThat(response.statusCode()).isEqualTo(200);
                accepted++;
            }
        }
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        assertThat(refused).as("a 429 within 200 revocations").isNotNull();
        // the burst, plus one a second while the loop ran
        assertThat(accepted).isBetween(BURST, BURST + (int) seconds + 1);
        assertThat(refused.header("Retry-After")).isEqualTo("1");
        assertThat(refused.header("Cache-Control")).isEqualTo("no-store");
        assertThat(refused.asString()).isEqualTo(
                "{\"error_code\":\"too_many_requests\",\"desc\":\"Too many revocations; retry after 1 s\"}");
        assertThat(introspect(kept).getBoolean("active")).isTrue();
    }

    private static Response revoke(String id, String secret, String token) {
        return fromOwnAddress().header("Authorization", basic(id, secret)).contentType(ContentType.URLENC)
                .formParam("token", token).post(REVOKE);
    }
}
