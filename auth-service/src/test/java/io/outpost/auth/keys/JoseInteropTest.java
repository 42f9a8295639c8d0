package io.outpost.auth.keys;

import static io.outpost.auth.JwtTestSupport.claims;
import static io.outpost.auth.JwtTestSupport.publishedKeys;
import static io.outpost.auth.JwtTestSupport.serviceDevKey;
import static io.outpost.auth.JwtTestSupport.signEs256;
import static io.outpost.auth.JwtTestSupport.verify;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

import io.outpost.auth.TestClients;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issued tokens verify with a standard JOSE library (Nimbus) against the published key set — signature (the
 * Conscrypt-made ES256 r‖s form included), {@code iss}, {@code aud}, {@code exp}, {@code typ} — and forged ones
 * do not.
 */
@QuarkusTest
class JoseInteropTest {

    @Test
    void issuedTokenPassesAStandardVerifier() throws Exception {
        for (int i = 0; i < 20; i++) { // ECDSA signatures vary in length as DER: several catch a bad r‖s conversion
            JWTClaimsSet claims = verify(TestClients.token(TestClients.GAME, TestClients.GAME_SECRET), publishedKeys());
            assertThat(claims.getSubject()).isEqualTo(TestClients.GAME);
            assertThat(claims.getStringClaim("client_id")).isEqualTo(TestClients.GAME);
            assertThat(claims.getStringListClaim("permissions")).containsExactly("notification:player:*",
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
        assertRefused(forged, "Signed JWT rejected: Invalid signature");
    }

    @Test
    void expiredTokenFails() throws Exception {
        ECKey serviceKey = serviceDevKey(); // the real signing key: only the expiry is wrong
        String expired = signEs256(serviceKey, serviceKey.getKeyID(),
                claims(TestClients.BACKEND, new Date(System.currentTimeMillis() - 120_000)));
        assertRefused(expired, "Expired JWT");
    }

    @Test
    void unsignedAlgNoneTokenFails() throws Exception {
        String[] parts = TestClients.token(TestClients.BACKEND, TestClients.BACKEND_SECRET).split("\\.");
        String header = b64("{\"alg\":\"none\",\"typ\":\"at+jwt\",\"kid\":\"" + serviceDevKey().getKeyID() + "\"}");
        assertThatThrownBy(() -> verify(header + "." + parts[1] + ".", publishedKeys()))
                .isInstanceOf(BadJOSEException.class).hasMessageContaining("Unsecured (plain) JWTs are rejected");
    }

    @Test
    void tokenSignedWithAnotherKeyUnderThePublishedKidFails() throws Exception {
        ECKey attacker = new ECKeyGenerator(Curve.P_256).generate();
        String forged = signEs256(attacker, serviceDevKey().getKeyID(),
                claims(TestClients.BACKEND, new Date(System.currentTimeMillis() + 600_000)));
        assertRefused(forged, "Signed JWT rejected: Invalid signature");
    }

    @Test
    void tokenOfAnotherTypeFails() throws Exception {
        ECKey serviceKey = serviceDevKey();
        SignedJWT idToken = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(serviceKey.getKeyID())
                .type(JOSEObjectType.JWT).build(), claims(TestClients.BACKEND, new Date(System.currentTimeMillis() + 600_000)));
        idToken.sign(new ECDSASigner(serviceKey));
        assertRefused(idToken.serialize(), "JOSE header typ (type) JWT not allowed");
    }

    @Test
    void tokenForAnotherAudienceOrIssuerFails() throws Exception {
        ECKey serviceKey = serviceDevKey();
        Date exp = new Date(System.currentTimeMillis() + 600_000);
        JWTClaimsSet otherAudience = new JWTClaimsSet.Builder(claims(TestClients.BACKEND, exp)).audience("elsewhere").build();
        JWTClaimsSet otherIssuer = new JWTClaimsSet.Builder(claims(TestClients.BACKEND, exp)).issuer("http://evil").build();
        assertRefused(signEs256(serviceKey, serviceKey.getKeyID(), otherAudience), "JWT aud claim rejected");
        assertRefused(signEs256(serviceKey, serviceKey.getKeyID(), otherIssuer), "JWT iss claim value rejected");
    }

    private static void assertRefused(String token, String why) throws Exception {
        JWKSet keys = publishedKeys();
        assertThatThrownBy(() -> verify(token, keys)).isInstanceOf(BadJOSEException.class).hasMessageContaining(why);
    }

    private static String b64(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

}
