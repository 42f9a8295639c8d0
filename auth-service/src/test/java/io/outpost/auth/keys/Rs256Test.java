package io.outpost.auth.keys;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jwt.SignedJWT;

import io.outpost.auth.JwtTestSupport;
import io.outpost.auth.TestClients;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/** RS256 is selected by configuring an RSA key: tokens, key set and discovery follow. */
@QuarkusTest
@TestProfile(Rs256Test.RsaKey.class)
class Rs256Test {

    public static class RsaKey implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("outpost.auth.keys.dir", "src/test/resources/test-keys/rs256");
        }
    }

    @Test
    void signsWithRs256AndPublishesTheRsaKey() throws Exception {
        given().get("/users/v1/publickeys").then().statusCode(200)
                .body("keys[0].kid", equalTo("test-rs256-2025-01"))
                .body("keys[0].kty", equalTo("RSA"))
                .body("keys[0].alg", equalTo("RS256"));
        given().get("/.well-known/openid-configuration").then()
                .body("id_token_signing_alg_values_supported", equalTo(List.of("RS256")));
        String token = TestClients.token(TestClients.GAME, TestClients.GAME_SECRET);
        SignedJWT jwt = SignedJWT.parse(token);
        assertThat(jwt.getHeader().getAlgorithm()).isEqualTo(JWSAlgorithm.RS256);
        assertThat(jwt.getHeader().getType().getType()).isEqualTo("at+jwt");
        assertThat(JwtTestSupport.verify(token, JwtTestSupport.publishedKeys()).getSubject()).isEqualTo(TestClients.GAME);
    }
}
