package io.outpost.auth;

import static io.restassured.RestAssured.given;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;

import io.outpost.auth.rest.AdminListener;
import io.quarkus.arc.Arc;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;

/** The clients of the test profile (application.properties, {@code %test.outpost.auth.bootstrap-clients}). */
public final class TestClients {

    public static final String GAME = "test-game";
    public static final String GAME_SECRET = "test-game-secret";
    public static final String GAME_PLAYER = "6f1d2a4e-8a53-4c1b-9d0e-2f7b5c9a1e33";
    public static final String BACKEND = "test-backend";
    public static final String BACKEND_SECRET = "test-backend-secret";
    public static final String DISABLED = "test-disabled";
    public static final String DISABLED_SECRET = "test-disabled-secret";
    public static final String ADMIN = "test-admin";
    public static final String ADMIN_SECRET = "test-admin-secret";
    public static final String TOKEN_PATH = "/users/v2/oauth/token";
    public static final String GRANT = "{\"grant_type\":\"client_credentials\"}";

    private TestClients() {
    }

    public static String basic(String id, String secret) {
        return "Basic " + Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
    }

    /** A request to the private admin API, on its own port (docs/deploy.md, "The admin API"). */
    public static RequestSpecification adminApi() {
        return given().port(Arc.container().instance(AdminListener.class).get().port());
    }

    /**
     * A request from its own client address, so that its failures never throttle another test: the test plays the
     * trusted proxy (loopback, {@code quarkus.http.proxy.trusted-proxies}) that reports the client's address.
     */
    public static RequestSpecification fromOwnAddress() {
        return given().header("X-Forwarded-For", ownAddress());
    }

    /** A client address of its own (10.0.0.0/8), as a trusted proxy reports it in {@code X-Forwarded-For}. */
    public static String ownAddress() {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        return "10." + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(1, 255);
    }

    /** A token request of {@code id}:{@code secret} with the JSON body. */
    public static RequestSpecification tokenRequest(String id, String secret) {
        return fromOwnAddress().header("Authorization", basic(id, secret)).contentType(ContentType.JSON).body(GRANT);
    }

    /** A fresh access token of a client. */
    public static String token(String id, String secret) {
        return tokenRequest(id, secret).post(TOKEN_PATH).then().statusCode(200).extract().path("access_token");
    }
}
