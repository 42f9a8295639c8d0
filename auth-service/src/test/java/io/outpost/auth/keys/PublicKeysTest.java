package io.outpost.auth.keys;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.nullValue;

import org.junit.jupiter.api.Test;

import io.outpost.auth.JwtTestSupport;
import io.outpost.auth.TestClients;
import io.quarkus.test.junit.QuarkusTest;

/** Key publication (DESIGN §2): the JWK Set and one key by id (discovery: DiscoveryTest). */
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
}
