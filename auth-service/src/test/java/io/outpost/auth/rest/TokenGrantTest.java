package io.outpost.auth.rest;

import static io.outpost.auth.TestClients.BACKEND;
import static io.outpost.auth.TestClients.BACKEND_SECRET;
import static io.outpost.auth.TestClients.GAME;
import static io.outpost.auth.TestClients.GAME_SECRET;
import static io.outpost.auth.TestClients.TOKEN_PATH;
import static io.outpost.auth.TestClients.basic;
import static io.outpost.auth.TestClients.fromOwnAddress;
import static io.outpost.auth.TestClients.tokenRequest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.hasKey;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import jakarta.inject.Inject;

import io.outpost.auth.service.SecretHasher;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;

/** The 200 answers of the token endpoint (spec §4.1, DESIGN §2). */
@QuarkusTest
class TokenGrantTest {

    @TestHTTPResource("/")
    URL base;

    @Inject
    SecretHasher hasher;

    @Test
    void grantsABearerTokenForAJsonBody() {
        tokenRequest(GAME, GAME_SECRET).post(TOKEN_PATH)
                .then().statusCode(200)
                .contentType(ContentType.JSON)
                .header("Cache-Control", "no-store")
                .header("Pragma", "no-cache")
                .body("token_type", equalTo("bearer"))
                .body("expires_in", equalTo(3600))
                .body("access_token", matchesPattern("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+"))
                .body("$", not(hasKey("refresh_token")))
                .body("size()", is(3));
    }

    @Test
    void grantsForAFormEncodedBodyAsStandardOAuthLibrariesSendIt() {
        fromOwnAddress().header("Authorization", basic(BACKEND, BACKEND_SECRET))
                .contentType("application/x-www-form-urlencoded; charset=UTF-8")
                .body("grant_type=client_credentials&scope=ignored")
                .post(TOKEN_PATH)
                .then().statusCode(200).body("token_type", equalTo("bearer"));
    }

    @Test
    void acceptsStandardAndUrlSafeBase64PaddedOrNot() {
        byte[] value = "test-sdk:sdk-secret???~~~".getBytes(StandardCharsets.UTF_8);
        String standard = Base64.getEncoder().encodeToString(value);
        String urlSafe = Base64.getUrlEncoder().withoutPadding().encodeToString(value);
        assertThat(standard).contains("/", "+", "=");
        assertThat(urlSafe).contains("_", "-").doesNotContain("=");
        for (String encoded : new String[] { standard, urlSafe, urlSafe + "==" }) {
            fromOwnAddress().header("Authorization", "Basic " + encoded).contentType(ContentType.JSON)
                    .body("{\"grant_type\":\"client_credentials\"}")
                    .post(TOKEN_PATH)
                    .then().statusCode(200).body("token_type", equalTo("bearer"));
        }
    }

    @Test
    void basicCredentialsAreFormUrlDecodedAsRfc6749SaysAndGeneratedSecretsNeedNoEncoding() {
        String secret = "re%s:er+v ed/&=?";
        String encoded = java.net.URLEncoder.encode("test-reserved", StandardCharsets.UTF_8) + ":"
                + java.net.URLEncoder.encode(secret, StandardCharsets.UTF_8);
        assertThat(encoded).isEqualTo("test-reserved:re%25s%3Aer%2Bv+ed%2F%26%3D%3F");
        fromOwnAddress().header("Authorization", "Basic " + Base64.getEncoder().encodeToString(encoded.getBytes()))
                .contentType(ContentType.JSON).body("{\"grant_type\":\"client_credentials\"}").post(TOKEN_PATH)
                .then().statusCode(200);
        // a secret of the admin surface is URL-safe base64: the same whether or not the client encodes it
        String generated = hasher.newSecret();
        assertThat(java.net.URLEncoder.encode(generated, StandardCharsets.UTF_8)).isEqualTo(generated);
        byte[] bytes = generated.getBytes(StandardCharsets.UTF_8);
        assertThat(io.outpost.support.http.PercentDecoding.decode(bytes, 0, bytes.length)).isEqualTo(generated);
    }

    @Test
    void readsABodyWithoutContentTypeAsJson() throws Exception {
        // rest-assured always sends a Content-Type; the JDK client sends none unless told
        HttpRequest request = HttpRequest.newBuilder(base.toURI().resolve(TOKEN_PATH))
                .header("Authorization", basic(GAME, GAME_SECRET)).header("X-Forwarded-For", io.outpost.auth.TestClients.ownAddress())
                .POST(HttpRequest.BodyPublishers.ofString("{\"grant_type\":\"client_credentials\"}")).build();
        HttpResponse<String> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(request.headers().firstValue("Content-Type")).isEmpty();
        assertThat(response.statusCode()).isEqualTo(200);
    }

    @Test
    void aBurstOfFirstRequestsOfOneClientSharesOneSlowCheck() throws Exception {
        long before = hasher.kdfRuns();
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest request = HttpRequest.newBuilder(base.toURI().resolve(TOKEN_PATH))
                .header("Authorization", basic("test-burst", "test-burst-secret")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"grant_type\":\"client_credentials\"}")).build();
        List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            burst.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> response : burst) {
            assertThat(response.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        // one KDF run serves them all (two when the last ones arrive exactly as the first is proven)
        assertThat(hasher.kdfRuns() - before).isBetween(1L, 2L);
    }

    @Test
    void tokenCarriesTheRfc9068ClaimsOfTheClient() {
        Response response = tokenRequest(GAME, GAME_SECRET).post(TOKEN_PATH);
        String[] parts = response.path("access_token").toString().split("\\.");
        Map<String, Object> header = io.restassured.path.json.JsonPath.from(decode(parts[0])).getMap("$");
        Map<String, Object> claims = io.restassured.path.json.JsonPath.from(decode(parts[1])).getMap("$");
        assertThat(header).containsEntry("typ", "at+jwt").containsEntry("alg", "ES256").containsKey("kid");
        assertThat(claims).containsEntry("iss", "http://localhost:8080").containsEntry("aud", "outpost")
                .containsEntry("sub", GAME).containsEntry("client_id", GAME)
                .containsEntry("player_uuid", io.outpost.auth.TestClients.GAME_PLAYER)
                .containsEntry("permissions", List.of("notification:player:self:*", "sandbox:config:view"))
                .containsKeys("exp", "iat", "jti");
        assertThat(((Number) claims.get("exp")).longValue() - ((Number) claims.get("iat")).longValue()).isEqualTo(3600);
    }

    private static String decode(String part) {
        return new String(Base64.getUrlDecoder().decode(part), StandardCharsets.UTF_8);
    }
}
