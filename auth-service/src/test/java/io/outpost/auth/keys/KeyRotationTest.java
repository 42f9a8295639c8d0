package io.outpost.auth.keys;

import static io.outpost.auth.JwtTestSupport.claims;
import static io.outpost.auth.JwtTestSupport.publishedKeys;
import static io.outpost.auth.JwtTestSupport.signEs256;
import static io.outpost.auth.JwtTestSupport.verify;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;

import java.util.Date;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.SignedJWT;

import io.outpost.auth.TestClients;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * Rotation, step 2 of docs/auth.md: two configured keys, the newest signs, both are published, and a token the
 * older key signed before the switch still verifies until that key is removed.
 */
@QuarkusTest
@TestProfile(KeyRotationTest.TwoKeys.class)
class KeyRotationTest {

    static final String OLDER = "test-2025-01-older";
    static final String NEWER = "test-2025-07-newer";

    /** The key folder holds both test keys; no active kid: the greatest kid signs. */
    public static class TwoKeys implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("outpost.auth.keys.dir", "src/test/resources/test-keys/rotation");
        }
    }

    @Test
    void publishesEveryConfiguredKey() {
        given().get("/users/v1/publickeys").then().statusCode(200).body("keys.kid", contains(OLDER, NEWER));
        given().get("/users/v1/publickeys/" + OLDER).then().statusCode(200);
        given().get("/users/v1/publickeys/" + NEWER).then().statusCode(200);
    }

    @Test
    void theNewestKeySigns() throws Exception {
        String token = TestClients.token(TestClients.GAME, TestClients.GAME_SECRET);
        assertThat(SignedJWT.parse(token).getHeader().getKeyID()).isEqualTo(NEWER);
        verify(token, publishedKeys());
    }

    @Test
    void aTokenOfTheOlderKeyStillVerifies() throws Exception {
        JWKSet keys = publishedKeys();
        ECKey older = io.outpost.auth.JwtTestSupport.testKey("rotation/" + OLDER + ".pem",
                (ECKey) keys.getKeyByKeyId(OLDER));
        String issuedBeforeTheSwitch = signEs256(older, OLDER,
                claims(TestClients.BACKEND, new Date(System.currentTimeMillis() + 600_000)));
        assertThat(verify(issuedBeforeTheSwitch, keys).getSubject()).isEqualTo(TestClients.BACKEND);
    }

    @Test
    void aRemovedKeyNoLongerVerifies() throws Exception {
        // the development key of the default profile is not configured here: its tokens are refused
        ECKey removed = io.outpost.auth.JwtTestSupport.serviceDevKey();
        given().get("/users/v1/publickeys/" + removed.getKeyID()).then().statusCode(404);
        String token = signEs256(removed, removed.getKeyID(), new com.nimbusds.jwt.JWTClaimsSet.Builder(
                claims(TestClients.ADMIN, new Date(System.currentTimeMillis() + 600_000)))
                .claim("permissions", java.util.List.of("auth:clients:admin")).build());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> verify(token, publishedKeys()))
                .hasMessageContaining("no matching key");
        // and Outpost's own verifier refuses it where it would open client administration
        TestClients.adminApi().auth().oauth2(token).get("/users/v1/admin/clients").then().statusCode(403)
                .body("error_code", org.hamcrest.Matchers.is("auth_invalid_key_id"));
    }
}
