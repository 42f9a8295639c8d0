package io.outpost.auth.admin;

import static io.outpost.auth.TestClients.ADMIN;
import static io.outpost.auth.TestClients.ADMIN_SECRET;
import static io.outpost.auth.TestClients.TOKEN_PATH;
import static io.outpost.auth.TestClients.adminApi;
import static io.outpost.auth.TestClients.token;
import static io.outpost.auth.TestClients.tokenRequest;
import static io.outpost.auth.admin.TokenLifecycleTest.CLIENTS;
import static io.outpost.auth.admin.TokenLifecycleTest.introspect;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;

/**
 * A client-wide revocation covers what other replicas may still hold (docs/auth.md, "Revocation"): its cut-off lies
 * 2 × {@code client-cache-ttl} (1 s) ahead, rounded up to a second, so that a token another replica signs from the
 * record it read before the change is revoked at birth. A token issued from the new record waits for the cut-off,
 * so that its {@code iat} is never in the future when the client receives it.
 */
@QuarkusTest
class ClientCutoffTest {

    @Test
    void aSecretRotatedWithoutGraceCutsOffTwoCacheLifetimesAheadAndTheNewSecretsTokenWaitsForIt() {
        String id = "cutoff-" + UUID.randomUUID().toString().substring(0, 8);
        String secret = create(id);
        String before = token(id, secret);
        Instant asked = Instant.now();
        JsonPath rotated = admin().queryParam("grace_seconds", 0).post(CLIENTS + "/" + id + "/secret").then()
                .statusCode(200).extract().jsonPath();
        Instant cutoff = Instant.parse(admin().get(CLIENTS + "/" + id).then().statusCode(200).extract()
                .path("tokens_revoked_before"));
        assertThat(Duration.between(asked, cutoff)).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(4));

        tokenRequest(id, secret).post(TOKEN_PATH).then().statusCode(401);
        String fresh = tokenRequest(id, rotated.getString("client_secret")).post(TOKEN_PATH).then().statusCode(200)
                .extract().path("access_token");
        Instant received = Instant.now();
        long iat = JsonPath.from(new String(java.util.Base64.getUrlDecoder().decode(fresh.split("\\.")[1])))
                .getLong("iat");
        assertThat(iat).as("not revoked with the earlier tokens").isGreaterThanOrEqualTo(cutoff.getEpochSecond());
        assertThat(Instant.ofEpochSecond(iat)).as("never in the future when received").isBeforeOrEqualTo(received);
        assertThat(introspect(fresh).getBoolean("active")).isTrue();
        assertThat(introspect(before).getBoolean("active")).isFalse();
    }

    @Test
    void aDisabledClientsTokensIssuedUpToTheCutoffAreAllRevoked() {
        String id = "cutoff-" + UUID.randomUUID().toString().substring(0, 8);
        String secret = create(id);
        String before = token(id, secret);
        Instant cutoff = Instant.parse(admin().post(CLIENTS + "/" + id + "/disable").then().statusCode(200).extract()
                .path("tokens_revoked_before"));
        // what a replica that had not yet heard would sign in the meantime: an iat before the cut-off
        assertThat(cutoff).isAfter(Instant.now().plusSeconds(1));
        assertThat(introspect(before).getBoolean("active")).isFalse();
        tokenRequest(id, secret).post(TOKEN_PATH).then().statusCode(401);
    }

    /** A new client {@code id}; answers its secret. */
    private static String create(String id) {
        return admin().contentType(ContentType.JSON).body(Map.of("client_id", id, "permissions",
                List.of("sandbox:config:view"))).post(CLIENTS).then().statusCode(201).extract().path("client_secret");
    }

    private static RequestSpecification admin() {
        return adminApi().auth().oauth2(token(ADMIN, ADMIN_SECRET));
    }
}
