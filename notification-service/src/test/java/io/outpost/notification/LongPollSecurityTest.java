package io.outpost.notification;

import static io.outpost.notification.Fixture.TOKENS;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;

import java.time.Instant;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.outpost.model.Permissions;
import io.outpost.testsupport.TestTokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/** DESIGN §3 on the long poll: the spec §5 permissions are accepted, every refusal answers 403 with its code. */
@QuarkusTest
class LongPollSecurityTest {

    private static final UUID PLAYER = UUID.randomUUID();

    private static ValidatableResponse poll(String authorization) {
        return given().header("Authorization", authorization).when().get(Fixture.LP + "?deadline=0").then();
    }

    private static void refused(ValidatableResponse response, String code) {
        response.statusCode(403).body("auth_success", is(false)).body("error_code", is(code));
    }

    private static TestTokens.Token reader() {
        return TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_READ).player(PLAYER);
    }

    @ParameterizedTest
    @ValueSource(strings = { Permissions.NOTIFICATION_PLAYER_ALL, Permissions.NOTIFICATION_PLAYER_READ,
            Permissions.NOTIFICATION_PLAYER_SELF_ALL, Permissions.NOTIFICATION_PLAYER_SELF_READ, "notification:*", "*" })
    void eachGrantingPermissionIsAccepted(String permission) {
        poll("Bearer " + TOKENS.token().permissions(permission).player(PLAYER).sign()).statusCode(200)
                .body("notifications", is(java.util.List.of()));
    }

    @Test
    void cookieAndRs256TokensAreAccepted() {
        given().cookie("Authorization", "bearer " + reader().sign()).when().get(Fixture.LP + "?deadline=0")
                .then().statusCode(200);
        poll("Bearer " + reader().rs256().sign()).statusCode(200);
    }

    @Test
    void otherPermissionsAreInsufficient() {
        poll("Bearer " + TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_WRITE, "notification:player:readx",
                Permissions.SANDBOX_CONFIG_VIEW).player(PLAYER).sign())
                .statusCode(403).body(is("{\"auth_success\":false,\"error_code\":\"insufficient_permissions\",\"desc\":"
                        + "\"The token lacks any of the permissions notification:player:*, notification:player:read, "
                        + "notification:player:self:*, notification:player:self:read\"}"));
        refused(poll("Bearer " + TOKENS.token().player(PLAYER).sign()), "insufficient_permissions");
    }

    @Test
    void tokenWithoutAPlayerIsInvalidTokenClaims() {
        refused(poll("Bearer " + TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_READ).sign()),
                "invalid_token_claims");
        refused(poll("Bearer " + reader().claim("player_uuid", "not-a-uuid").sign()), "invalid_token_claims");
    }

    @Test
    void missingOrMalformedAccessIsRefused() {
        refused(given().when().get(Fixture.LP).then(), "auth_malformed_access");
        refused(poll("Basic dXNlcjpwYXNz"), "auth_malformed_access");
        refused(poll("Bearer opaque-token"), "auth_not_jwt");
        refused(poll("Bearer abc.def.ghi"), "auth_token_format");
    }

    @Test
    void expiredTokenIsRefused() {
        refused(poll("Bearer " + reader().expiresAt(Instant.now().minusSeconds(120)).sign()), "auth_token_expired");
    }

    @Test
    void forgedOrUnsignedTokensAreRefused() {
        String[] parts = reader().sign().split("\\.");
        String forged = TOKENS.token().permissions("*").player(PLAYER).sign().split("\\.")[1];
        refused(poll("Bearer " + parts[0] + "." + forged + "." + parts[2]), "auth_token_sig_invalid");
        refused(poll("Bearer " + reader().untrustedKey().sign()), "auth_token_sig_invalid");
        refused(poll("Bearer " + reader().unsigned()), "auth_token_sig_invalid");
    }

    @Test
    void unknownKeyIdIsRefused() {
        refused(poll("Bearer " + reader().keyId("no-such-key").sign()), "auth_invalid_key_id");
        refused(poll("Bearer " + reader().keyId(null).sign()), "auth_invalid_key_id");
    }

    @Test
    void wrongClaimsOrTypeAreRefused() {
        refused(poll("Bearer " + reader().issuer("https://elsewhere.invalid").sign()), "auth_token_invalid_claim");
        refused(poll("Bearer " + reader().audience("someone-else").sign()), "auth_token_invalid_claim");
        refused(poll("Bearer " + reader().type("JWT").sign()), "auth_token_invalid_type");
    }

    @Test
    void refusalComesBeforeInputValidation() {
        refused(given().when().get(Fixture.LP + "?max_page_size=0").then(), "auth_malformed_access");
    }
}
