package io.outpost.auth.admin;

import static io.outpost.auth.TestClients.ADMIN;
import static io.outpost.auth.TestClients.ADMIN_SECRET;
import static io.outpost.auth.TestClients.TOKEN_PATH;
import static io.outpost.auth.TestClients.adminApi;
import static io.outpost.auth.TestClients.token;
import static io.outpost.auth.TestClients.tokenRequest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.outpost.auth.service.SecretHasher;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;

/**
 * A rotated secret's grace is short unless the call asks for more, can be ended at once, and does not show: a
 * wrong secret costs one KDF run whether or not the client is within a grace (docs/auth.md, "Administration").
 */
@QuarkusTest
class SecretGraceTest {

    static final String CLIENTS = "/users/v1/admin/clients";

    @Inject
    SecretHasher hasher;

    private String adminToken;

    @BeforeEach
    void anAdminToken() {
        adminToken = token(ADMIN, ADMIN_SECRET);
    }

    @Test
    void aRotationWithoutGraceSecondsKeepsTheOldSecretFiveMinutesAndTheAdminCanEndItAtOnce() {
        String id = "grace-" + UUID.randomUUID().toString().substring(0, 8);
        String old = create(id);
        Instant asked = Instant.now();
        JsonPath rotated = admin().post(CLIENTS + "/" + id + "/secret").then().statusCode(200).extract().jsonPath();
        String fresh = rotated.getString("client_secret");
        Instant graceEnd = Instant.parse(rotated.getString("previous_secret_expires_at"));
        assertThat(Duration.between(asked, graceEnd)).isBetween(Duration.ofMinutes(5).minusSeconds(1),
                Duration.ofMinutes(5).plusSeconds(5));
        tokenRequest(id, old).post(TOKEN_PATH).then().statusCode(200);

        admin().post(CLIENTS + "/" + id + "/end-previous-secret").then().statusCode(200)
                .body("client_id", equalTo(id)).body("$", not(hasKey("previous_secret_expires_at")))
                .body("$", hasKey("tokens_revoked_before"));
        tokenRequest(id, old).post(TOKEN_PATH).then().statusCode(401).body("error", equalTo("invalid_client"));
        tokenRequest(id, fresh).post(TOKEN_PATH).then().statusCode(200);
        admin().post(CLIENTS + "/nobody-" + id + "/end-previous-secret").then().statusCode(404);
    }

    @Test
    void aWrongSecretCostsOneKdfRunWithinAGraceAsWithout() {
        String plain = "plain-" + UUID.randomUUID().toString().substring(0, 8);
        create(plain);
        String rotating = "rotating-" + UUID.randomUUID().toString().substring(0, 8);
        String old = create(rotating);
        String fresh = admin().queryParam("grace_seconds", 3600).post(CLIENTS + "/" + rotating + "/secret").then()
                .statusCode(200).extract().path("client_secret");

        assertThat(kdfRunsOf(tokenRequest(plain, "wrong-secret"))).as("no grace").isEqualTo(1);
        assertThat(kdfRunsOf(tokenRequest(rotating, "wrong-secret"))).as("within a grace").isEqualTo(1);
        // both secrets still work, each for one run at first use
        assertThat(kdfRunsOf(tokenRequest(rotating, old), 200)).isEqualTo(1);
        assertThat(kdfRunsOf(tokenRequest(rotating, fresh), 200)).isEqualTo(1);
    }

    /** The KDF runs one refused attempt took. */
    private long kdfRunsOf(RequestSpecification attempt) {
        return kdfRunsOf(attempt, 401);
    }

    private long kdfRunsOf(RequestSpecification attempt, int status) {
        long before = hasher.kdfRuns();
        attempt.post(TOKEN_PATH).then().statusCode(status);
        return hasher.kdfRuns() - before;
    }

    private RequestSpecification admin() {
        return adminApi().auth().oauth2(adminToken);
    }

    private String create(String id) {
        return admin().contentType(ContentType.JSON).body(Map.of("client_id", id, "permissions", List.of()))
                .post(CLIENTS).then().statusCode(201).extract().path("client_secret");
    }
}
