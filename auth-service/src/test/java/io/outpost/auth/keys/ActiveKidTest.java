package io.outpost.auth.keys;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;

import java.util.Map;

import org.junit.jupiter.api.Test;

import com.nimbusds.jwt.SignedJWT;

import io.outpost.auth.JwtTestSupport;
import io.outpost.auth.TestClients;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * Rotation, step 1 of docs/auth.md: a new key is published before it signs ({@code active-kid} still names the
 * old one), so verifiers hold it by the time it takes over.
 */
@QuarkusTest
@TestProfile(ActiveKidTest.PublishedNotYetSigning.class)
class ActiveKidTest {

    public static class PublishedNotYetSigning implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("outpost.auth.keys.dir", "src/test/resources/test-keys/rotation",
                    "outpost.auth.keys.active-kid", KeyRotationTest.OLDER);
        }
    }

    @Test
    void theActiveKidSignsWhileTheNewKeyIsOnlyPublished() throws Exception {
        given().get("/users/v1/publickeys").then().statusCode(200)
                .body("keys.kid", contains(KeyRotationTest.OLDER, KeyRotationTest.NEWER));
        String token = TestClients.token(TestClients.GAME, TestClients.GAME_SECRET);
        assertThat(SignedJWT.parse(token).getHeader().getKeyID()).isEqualTo(KeyRotationTest.OLDER);
        JwtTestSupport.verify(token, JwtTestSupport.publishedKeys());
    }
}
