package io.outpost.auth.keys;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import org.junit.jupiter.api.Test;

import io.outpost.auth.JwtTestSupport;
import io.outpost.auth.TestClients;
import io.quarkus.test.junit.QuarkusTest;

/** Key publication (DESIGN §2): the JWK Set, one key by id, and discovery. */
@QuarkusTest
class PublicKeysTest {

    @Test
    void publishesTheSigningKeyAsAJwkSetWithoutPrivateParts() throws Exception {
        String kid = JwtTestSupport.serviceDevKey().getKeyID();
        given().get("/users/v1/publickeys").then().statusCode(200)
                .contentType("application/json")
                .header("Cache-Control", "public, max-age=300")
                .body("keys", hasSize(1))
                .body("keys[0].kid", equalTo(kid))
                .body("keys[0].kty", equalTo("EC"))
                .body("keys[0].crv", equalTo("P-256"))
                .body("keys[0].use", equalTo("sig"))
                .body("keys[0].alg", equalTo("ES256"))
                .body("keys[0].d", nullValue());
    }

    @Test
    void servesOneKeyById() throws Exception {
        String kid = JwtTestSupport.serviceDevKey().getKeyID();
        String single = given().get("/users/v1/publickeys/" + kid).then().statusCode(200)
                .body("kid", equalTo(kid)).body("d", nullValue()).extract().asString();
        String inSet = given().get("/users/v1/publickeys").then().extract().path("keys[0].x");
        assertThat(single).contains(inSet);
    }

    @Test
    void answersAnUnknownKeyIdWith404AndTheDesignErrorBody() {
        String body = given().get("/users/v1/publickeys/no-such-kid").then().statusCode(404)
                .contentType("application/json").extract().asString();
        assertThat(body).isEqualTo("{\"auth_success\":false,\"error_code\":\"auth_invalid_key_id\","
                + "\"desc\":\"No published key has this id\"}");
    }

    @Test
    void tokensNameThePublishedKey() throws Exception {
        String token = TestClients.token(TestClients.BACKEND, TestClients.BACKEND_SECRET);
        String kid = com.nimbusds.jwt.SignedJWT.parse(token).getHeader().getKeyID();
        given().get("/users/v1/publickeys/" + kid).then().statusCode(200);
    }

    @Test
    void publishesDiscoveryMetadata() {
        String base = given().get("/.well-known/openid-configuration").then().statusCode(200)
                .body("issuer", equalTo("http://localhost:8080"))
                .body("token_endpoint", startsWith("http://localhost:"))
                .body("grant_types_supported", equalTo(java.util.List.of("client_credentials")))
                .body("token_endpoint_auth_methods_supported", equalTo(java.util.List.of("client_secret_basic")))
                .body("id_token_signing_alg_values_supported", equalTo(java.util.List.of("ES256")))
                .extract().path("token_endpoint");
        String jwks = given().get("/.well-known/openid-configuration").then().extract().path("jwks_uri");
        assertThat(base).endsWith("/users/v2/oauth/token");
        assertThat(jwks).isEqualTo(base.replace("/users/v2/oauth/token", "/users/v1/publickeys"));
        given().get("/.well-known/oauth-authorization-server").then().statusCode(200)
                .body("issuer", equalTo("http://localhost:8080")).body("jwks_uri", equalTo(jwks));
    }
}
