package io.outpost.support.security;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.is;

import java.time.Instant;
import java.util.Base64;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.outpost.model.Permissions;
import io.outpost.testsupport.TestTokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/** DESIGN §3 through real HTTP: every refusal is a 403 with auth_success false and its own error_code. */
@QuarkusTest
class BearerTokenTest {

    private static final TestTokens TOKENS = TestTokens.shared();
    private static final UUID PLAYER = UUID.fromString("6a1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d");

    private static ValidatableResponse player(String authorization) {
        return given().header("Authorization", authorization).when().get("/guarded/player").then();
    }

    private static void refused(ValidatableResponse response, String code) {
        response.statusCode(403).body("auth_success", is(false)).body("error_code", is(code))
                .header("WWW-Authenticate", challenge(code));
    }

    /** RFC 6750 §3: no error without a bearer token, insufficient_scope for permissions, else invalid_token. */
    static org.hamcrest.Matcher<String> challenge(String code) {
        if (code.equals("auth_malformed_access")) {
            return is("Bearer realm=\"outpost\"");
        }
        String error = code.equals("insufficient_permissions") || code.equals("invalid_token_claims")
                ? "insufficient_scope" : "invalid_token";
        return org.hamcrest.Matchers.startsWith("Bearer realm=\"outpost\", error=\"" + error + "\", error_description=\"");
    }

    private static TestTokens.Token reader() {
        return TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_READ).player(PLAYER);
    }

    @Test
    void validTokenReachesTheEndpointWithItsPlayer() {
        player("Bearer " + reader().client("game-sdk").sign())
                .statusCode(200).body("player", is(PLAYER.toString())).body("client_id", is("game-sdk"));
    }

    @ParameterizedTest
    @ValueSource(strings = { Permissions.NOTIFICATION_PLAYER_ALL, Permissions.NOTIFICATION_PLAYER_READ,
            Permissions.NOTIFICATION_PLAYER_SELF_ALL, Permissions.NOTIFICATION_PLAYER_SELF_READ, "notification:*" })
    void eachGrantingPermissionIsAccepted(String permission) {
        player("Bearer " + TOKENS.token().permissions(permission).player(PLAYER).sign()).statusCode(200);
    }

    @Test
    void rs256TokenIsAccepted() {
        player("Bearer " + reader().rs256().sign()).statusCode(200);
    }

    @Test
    void cookieCarryingTheTokenIsAccepted() {
        given().cookie("Authorization", "bearer " + reader().sign()).when().get("/guarded/player")
                .then().statusCode(200).body("player", is(PLAYER.toString()));
    }

    @ParameterizedTest
    @ValueSource(strings = { "bearer%zz", "bearer%", "%E0%A4%A", "bearer%20%FF", "bearer+x%C0%80" })
    void cookieThatIsNotUrlEncodedIsMalformedAccess(String value) {
        refused(given().header("Cookie", "Authorization=" + value).when().get("/guarded/player").then(),
                "auth_malformed_access");
    }

    @Test
    void missingTokenIsMalformedAccess() {
        refused(given().when().get("/guarded/player").then(), "auth_malformed_access");
    }

    @Test
    void nonBearerAuthorizationIsMalformedAccess() {
        refused(player("Basic dXNlcjpwYXNz"), "auth_malformed_access");
        refused(player("Bearer "), "auth_malformed_access");
    }

    @Test
    void tokenThatIsNotAJwtIsNotJwt() {
        refused(player("Bearer opaque-token"), "auth_not_jwt");
    }

    @Test
    void unreadableJwtIsTokenFormat() {
        refused(player("Bearer abc.def.ghi"), "auth_token_format"); // "def" and "ghi" are not canonical either
        refused(player("Bearer abc.abc.abc"), "auth_token_format"); // canonical, but not JSON
    }

    @Test
    void expiredTokenIsTokenExpired() {
        refused(player("Bearer " + reader().expiresAt(Instant.now().minusSeconds(120)).sign()), "auth_token_expired");
    }

    @Test
    void tamperedPayloadIsSignatureInvalid() {
        String[] parts = reader().sign().split("\\.");
        String forged = TOKENS.token().permissions("*").player(PLAYER).sign().split("\\.")[1];
        refused(player("Bearer " + parts[0] + "." + forged + "." + parts[2]), "auth_token_sig_invalid");
    }

    /**
     * RFC 7515 §2 and RFC 4648 §3.5: each part is unpadded base64url in its one canonical spelling. A part whose
     * last character differs only in the bits no byte uses decodes to the same bytes, signature included, so
     * accepting it would let one token be written several ways (a cache, a log or a revocation list keyed by the
     * token string would see different tokens).
     */
    @Test
    void aPartNotInCanonicalBase64urlIsTokenFormatEvenWhenItDecodesToTheSameBytes() {
        for (TestTokens.Token signer : java.util.List.of(reader().client("canonical"), reader().client("canonical").rs256())) {
            String token = signer.sign();
            player("Bearer " + token).statusCode(200);
            String[] parts = token.split("\\.");
            assertThat(parts[2].length() % 4).as("an ES256 or RS256 signature's last character has unused bits")
                    .isEqualTo(2);
            for (int i = 2; i >= 0; i--) { // the signature first: its respelling was accepted
                String[] altered = parts.clone();
                altered[i] = TestTokens.nonCanonical(parts[i]);
                if (parts[i].length() % 4 != 0) {
                    assertThat(Base64.getUrlDecoder().decode(altered[i])).isEqualTo(Base64.getUrlDecoder().decode(parts[i]));
                }
                refused(player("Bearer " + String.join(".", altered)), "auth_token_format");
            }
            refused(player("Bearer " + token + "="), "auth_not_jwt");
            refused(player("Bearer " + token + ".x"), "auth_not_jwt");
            refused(player("Bearer ." + parts[1] + "." + parts[2]), "auth_not_jwt");
            refused(player("Bearer " + parts[0] + "=." + parts[1] + "." + parts[2]), "auth_not_jwt");
            player("Bearer " + token).statusCode(200);
        }
    }

    /** The cache of verified tokens (keyed by digest) remembers that token only, never one that differs from it. */
    @Test
    void aRememberedTokenVouchesForNoOtherToken() {
        String token = reader().client("remembered").sign();
        player("Bearer " + token).statusCode(200);
        player("Bearer " + token).statusCode(200).body("client_id", is("remembered")); // from the cache
        String[] parts = token.split("\\.");
        String forged = TOKENS.token().permissions("*").player(PLAYER).client("forged").sign().split("\\.")[1];
        refused(player("Bearer " + parts[0] + "." + forged + "." + parts[2]), "auth_token_sig_invalid");
        int at = parts[0].length() + parts[1].length() + 12; // inside the signature, away from its padding bits
        String oneCharChanged = token.substring(0, at) + (token.charAt(at) == 'A' ? 'B' : 'A') + token.substring(at + 1);
        refused(player("Bearer " + oneCharChanged), "auth_token_sig_invalid");
        player("Bearer " + token).statusCode(200).body("client_id", is("remembered"));
    }

    @Test
    void tokenSignedByAnUnpublishedKeyIsSignatureInvalid() {
        refused(player("Bearer " + reader().untrustedKey().sign()), "auth_token_sig_invalid");
    }

    @Test
    void unsignedTokenIsSignatureInvalid() {
        refused(player("Bearer " + reader().unsigned()), "auth_token_sig_invalid");
    }

    @Test
    void unknownOrMissingKeyIdIsInvalidKeyId() {
        refused(player("Bearer " + reader().keyId("no-such-key").sign()), "auth_invalid_key_id");
        refused(player("Bearer " + reader().keyId(null).sign()), "auth_invalid_key_id");
    }

    @Test
    void keyPublishedAfterStartIsPickedUp() {
        String kid = TOKENS.publishNewKey();
        player("Bearer " + reader().keyId(kid).sign()).statusCode(200);
    }

    @Test
    void aRememberedTokenStopsVerifyingOnceItsKeyLeavesTheKeySet() {
        rememberedTokenRefusedOnceItsKey(TOKENS::unpublish, "auth_invalid_key_id");
    }

    /** A token verified and remembered, then its key changed by {@code change}: refused with {@code code}. */
    private void rememberedTokenRefusedOnceItsKey(java.util.function.Consumer<String> change, String code) {
        String kid = TOKENS.publishNewKey();
        String token = "Bearer " + reader().keyId(kid).sign();
        player(token).statusCode(200);
        player(token).statusCode(200); // now remembered as verified
        change.accept(kid);
        // within one key-set refresh (outpost.security.jwks-refresh, 2 s in tests)
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> given().header("Authorization", token).get("/guarded/player").statusCode() == 403);
        refused(player(token), code);
        if (!"auth_invalid_key_id".equals(code)) {
            player("Bearer " + reader().keyId(kid).sign()).statusCode(200); // the new key verifies what it signs
        }
    }

    /** A key replaced by another under the same id: a token the old one signed, remembered, is verified afresh. */
    @Test
    void aRememberedTokenStopsVerifyingOnceAnotherKeyTakesItsId() {
        rememberedTokenRefusedOnceItsKey(TOKENS::replaceKey, "auth_token_sig_invalid");
    }

    @Test
    void oddClaimValuesAreInvalidClaimsNeverA500() {
        refused(player("Bearer " + reader().claim("groups", 5).sign()), "auth_token_invalid_claim");
        refused(player("Bearer " + reader().claim("client_id", 5).sign()), "auth_token_invalid_claim");
        refused(player("Bearer " + reader().claim("player_uuid", java.util.List.of("x")).sign()), "auth_token_invalid_claim");
        refused(player("Bearer " + reader().claim("permissions", java.util.List.of("a", 1)).sign()), "auth_token_invalid_claim");
        refused(player("Bearer " + reader().claim("sub", null).sign()), "auth_token_invalid_claim");
        refused(player("Bearer " + reader().claim("iat", null).sign()), "auth_token_invalid_claim");
        refused(player("Bearer " + reader().issuedAt(Instant.now().plusSeconds(7200)).sign()), "auth_token_invalid_claim");
        refused(player("Bearer " + reader().claim("nbf", Instant.now().plusSeconds(3600).getEpochSecond()).sign()),
                "auth_token_invalid_claim");
    }

    @Test
    void anRs256HeaderOnAnEcKeyIsSignatureInvalid() {
        String[] rs = reader().rs256().sign().split("\\.");
        String header = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
                ("{\"alg\":\"RS256\",\"kid\":\"" + TestTokens.ES256_KID + "\",\"typ\":\"at+jwt\"}").getBytes());
        refused(player("Bearer " + header + "." + rs[1] + "." + rs[2]), "auth_token_sig_invalid");
    }

    @Test
    void wrongIssuerOrAudienceIsInvalidClaim() {
        refused(player("Bearer " + reader().issuer("https://evil.example").sign()), "auth_token_invalid_claim");
        refused(player("Bearer " + reader().audience("someone-else").sign()), "auth_token_invalid_claim");
        refused(player("Bearer " + reader().claim("permissions", "notification:player:read").sign()),
                "auth_token_invalid_claim");
    }

    @Test
    void tokenThatIsNotAnAccessTokenIsInvalidType() {
        refused(player("Bearer " + reader().type("JWT").sign()), "auth_token_invalid_type");
        refused(player("Bearer " + reader().type(null).sign()), "auth_token_invalid_type");
    }

    @Test
    void tokenWithoutPlayerOnAPlayerEndpointIsInvalidTokenClaims() {
        refused(player("Bearer " + TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_READ).sign()),
                "invalid_token_claims");
        refused(player("Bearer " + reader().claim("player_uuid", "not-a-uuid").sign()), "invalid_token_claims");
    }

    @Test
    void tokenWithoutAGrantingPermissionIsInsufficientPermissions() {
        refused(player("Bearer " + TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_WRITE,
                Permissions.SANDBOX_CONFIG_VIEW).player(PLAYER).sign()), "insufficient_permissions");
        refused(given().header("Authorization", "Bearer " + reader().sign()).when().get("/guarded/sandbox").then(),
                "insufficient_permissions");
    }

    @Test
    void nonPlayerEndpointAcceptsATokenWithoutPlayer() {
        given().header("Authorization", "Bearer " + TOKENS.token().client("console")
                .permissions(Permissions.SANDBOX_CONFIG_EDIT).sign())
                .when().get("/guarded/sandbox").then().statusCode(200).body("client_id", is("console"));
    }

    @Test
    void unguardedEndpointNeedsNoToken() {
        given().when().get("/guarded/open").then().statusCode(200);
    }
}
