package io.outpost.auth.keys;

import static io.outpost.auth.JwtTestSupport.claims;
import static io.outpost.auth.JwtTestSupport.publishedKeys;
import static io.outpost.auth.JwtTestSupport.serviceDevKey;
import static io.outpost.auth.JwtTestSupport.signEs256;
import static io.outpost.auth.JwtTestSupport.verify;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static io.restassured.RestAssured.given;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Date;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import io.outpost.auth.GatewayInFront;
import io.outpost.auth.TestClients;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;

/**
 * Issued tokens verify with a standard JOSE library (Nimbus) against the published key set — signature (the
 * Conscrypt-made ES256 r‖s form included), {@code iss}, {@code aud}, {@code exp}, {@code typ} — and forged ones
 * do not: neither for Nimbus nor for Outpost's own verifier (SmallRye JWT underneath), which must refuse each with
 * its DESIGN §3 code on an endpoint the forged token would otherwise open (client administration).
 */
@QuarkusTest
class JoseInteropTest {

    @Test
    void issuedTokenPassesAStandardVerifier() throws Exception {
        // as a client outside would: token endpoint and key set as discovery names them, through the gateway
        JsonPath discovery = GatewayInFront.discovery();
        JWKSet keys = JWKSet.parse(given().get(discovery.getString("jwks_uri")).then().statusCode(200).extract().asString());
        for (int i = 0; i < 20; i++) { // ECDSA signatures vary in length as DER: several catch a bad r‖s conversion
            String token = TestClients.tokenRequest(TestClients.GAME, TestClients.GAME_SECRET)
                    .post(discovery.getString("token_endpoint")).then().statusCode(200).extract().path("access_token");
            JWTClaimsSet claims = verify(token, keys);
            assertThat(claims.getSubject()).isEqualTo(TestClients.GAME);
            assertThat(claims.getStringClaim("client_id")).isEqualTo(TestClients.GAME);
            assertThat(claims.getStringListClaim("permissions")).containsExactly("notification:player:self:*",
                    "sandbox:config:view");
            assertThat(claims.getStringClaim("player_uuid")).isEqualTo(TestClients.GAME_PLAYER);
        }
    }

    @Test
    void tokenOfAClientWithoutPlayerHasNoPlayerClaim() throws Exception {
        JWTClaimsSet claims = verify(TestClients.token(TestClients.BACKEND, TestClients.BACKEND_SECRET), publishedKeys());
        assertThat(claims.getClaims()).doesNotContainKey("player_uuid");
        assertThat(claims.getStringListClaim("permissions")).containsExactly("sandbox:config:edit");
    }

    @Test
    void tamperedTokenFails() throws Exception {
        String[] parts = TestClients.token(TestClients.BACKEND, TestClients.BACKEND_SECRET).split("\\.");
        String payload = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
                .replace("sandbox:config:edit", "auth:clients:admin");
        String forged = parts[0] + "." + b64(payload) + "." + parts[2];
        assertRefused(forged, "Signed JWT rejected: Invalid signature", "auth_token_sig_invalid");
    }

    @Test
    void expiredTokenFails() throws Exception {
        ECKey serviceKey = serviceDevKey(); // the real signing key: only the expiry is wrong
        String expired = signEs256(serviceKey, serviceKey.getKeyID(),
                admin(claims(TestClients.BACKEND, new Date(System.currentTimeMillis() - 120_000))));
        assertRefused(expired, "Expired JWT", "auth_token_expired");
    }

    @Test
    void unsignedAlgNoneTokenFails() throws Exception {
        String[] parts = TestClients.token(TestClients.ADMIN, TestClients.ADMIN_SECRET).split("\\.");
        String header = b64("{\"alg\":\"none\",\"typ\":\"at+jwt\",\"kid\":\"" + serviceDevKey().getKeyID() + "\"}");
        assertThatThrownBy(() -> verify(header + "." + parts[1] + ".", publishedKeys()))
                .isInstanceOf(BadJOSEException.class).hasMessageContaining("Unsecured (plain) JWTs are rejected");
        refusedByOutpost(header + "." + parts[1] + ".", "auth_token_sig_invalid");
    }

    @Test
    void tokenSignedWithAnotherKeyUnderThePublishedKidFails() throws Exception {
        ECKey attacker = new ECKeyGenerator(Curve.P_256).generate();
        String forged = signEs256(attacker, serviceDevKey().getKeyID(),
                admin(claims(TestClients.BACKEND, new Date(System.currentTimeMillis() + 600_000))));
        assertRefused(forged, "Signed JWT rejected: Invalid signature", "auth_token_sig_invalid");
    }

    @Test
    void tokenOfAnotherTypeFails() throws Exception {
        ECKey serviceKey = serviceDevKey();
        SignedJWT idToken = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(serviceKey.getKeyID())
                .type(JOSEObjectType.JWT).build(), admin(claims(TestClients.BACKEND,
                        new Date(System.currentTimeMillis() + 600_000))));
        idToken.sign(new ECDSASigner(serviceKey));
        assertRefused(idToken.serialize(), "JOSE header typ (type) JWT not allowed", "auth_token_invalid_type");
    }

    @Test
    void tokenForAnotherAudienceOrIssuerFails() throws Exception {
        ECKey serviceKey = serviceDevKey();
        Date exp = new Date(System.currentTimeMillis() + 600_000);
        JWTClaimsSet otherAudience = new JWTClaimsSet.Builder(admin(claims(TestClients.BACKEND, exp))).audience("elsewhere").build();
        JWTClaimsSet otherIssuer = new JWTClaimsSet.Builder(admin(claims(TestClients.BACKEND, exp))).issuer("http://evil").build();
        assertRefused(signEs256(serviceKey, serviceKey.getKeyID(), otherAudience), "JWT aud claim rejected",
                "auth_token_invalid_claim");
        assertRefused(signEs256(serviceKey, serviceKey.getKeyID(), otherIssuer), "JWT iss claim value rejected",
                "auth_token_invalid_claim");
    }

    @Test
    void aWellFormedForgeryWouldOpenTheEndpointSoTheRefusalsAboveMeanSomething() throws Exception {
        ECKey serviceKey = serviceDevKey();
        String genuine = signEs256(serviceKey, serviceKey.getKeyID(),
                admin(claims(TestClients.ADMIN, new Date(System.currentTimeMillis() + 600_000))));
        TestClients.adminApi().auth().oauth2(genuine).get("/users/v1/admin/clients").then().statusCode(200);
    }

    private static void assertRefused(String token, String why, String outpostCode) throws Exception {
        JWKSet keys = publishedKeys();
        assertThatThrownBy(() -> verify(token, keys)).isInstanceOf(BadJOSEException.class).hasMessageContaining(why);
        refusedByOutpost(token, outpostCode);
    }

    /** Outpost's verifier refuses the token with its exact code where it would grant client administration. */
    private static void refusedByOutpost(String token, String code) {
        TestClients.adminApi().auth().oauth2(token).get("/users/v1/admin/clients").then().statusCode(403)
                .body("auth_success", org.hamcrest.Matchers.is(false))
                .body("error_code", org.hamcrest.Matchers.is(code));
    }

    /** The same claims with the client-administration permission, so that only verification stands in the way. */
    private static JWTClaimsSet admin(JWTClaimsSet claims) {
        return new JWTClaimsSet.Builder(claims).claim("permissions", java.util.List.of("auth:clients:admin")).build();
    }

    private static String b64(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

}
