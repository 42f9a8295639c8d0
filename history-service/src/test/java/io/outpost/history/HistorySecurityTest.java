package io.outpost.history;

import static io.outpost.history.HistoryFixture.PROFILE_LIST;
import static io.outpost.history.HistoryFixture.ROLE;
import static io.outpost.history.HistoryFixture.path;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.outpost.model.Permissions;
import io.outpost.testsupport.TestTokens;
import io.quarkus.test.junit.QuarkusTest;

/** DESIGN §3 on both listings: each refusal is a 403 with its error_code; view, edit and wildcards are let in. */
@QuarkusTest
class HistorySecurityTest {

    private static final TestTokens TOKENS = TestTokens.shared();
    private static final UUID SANDBOX = UUID.randomUUID();

    private static TestTokens.Token viewer() {
        return TOKENS.token().permissions(Permissions.SANDBOX_CONFIG_VIEW);
    }

    /** Every (endpoint, Authorization value, error_code) refusal. */
    static Stream<Arguments> refusals() {
        List<Arguments> cases = new ArrayList<>();
        for (String type : List.of(ROLE, PROFILE_LIST)) {
            cases.add(Arguments.of(type, "Basic dXNlcjpwYXNz", "auth_malformed_access"));
            cases.add(Arguments.of(type, "Bearer opaque", "auth_not_jwt"));
            cases.add(Arguments.of(type, "Bearer abc.def.ghi", "auth_token_format"));
            cases.add(Arguments.of(type, "Bearer " + viewer().expiresAt(Instant.now().minusSeconds(120)).sign(),
                    "auth_token_expired"));
            cases.add(Arguments.of(type, "Bearer " + viewer().untrustedKey().sign(), "auth_token_sig_invalid"));
            cases.add(Arguments.of(type, "Bearer " + viewer().unsigned(), "auth_token_sig_invalid"));
            cases.add(Arguments.of(type, "Bearer " + viewer().keyId("no-such-key").sign(), "auth_invalid_key_id"));
            cases.add(Arguments.of(type, "Bearer " + viewer().issuer("https://elsewhere").sign(), "auth_token_invalid_claim"));
            cases.add(Arguments.of(type, "Bearer " + viewer().type("JWT").sign(), "auth_token_invalid_type"));
            cases.add(Arguments.of(type, "Bearer " + TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_ALL,
                    "sandbox:config:delete", "sandbox:other:*").sign(), "insufficient_permissions"));
            cases.add(Arguments.of(type, "Bearer " + TOKENS.token().sign(), "insufficient_permissions"));
        }
        return cases.stream();
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void refusedTokenIsForbiddenWithItsCode(String type, String authorization, String code) {
        given().header("Authorization", authorization).when().get(path(SANDBOX, type))
                .then().statusCode(403).body("auth_success", is(false)).body("error_code", is(code));
    }

    @ParameterizedTest
    @ValueSource(strings = { ROLE, PROFILE_LIST })
    void missingTokenIsMalformedAccessEvenBeforeInputIsChecked(String type) {
        given().when().get(path(SANDBOX, type)).then().statusCode(403).body(equalTo(
                "{\"auth_success\":false,\"error_code\":\"auth_malformed_access\",\"desc\":\"No access token was presented\"}"));
        given().when().get("/v1/history/sandbox/not-a-uuid/" + type + "?page_size=0")
                .then().statusCode(403).body("error_code", is("auth_malformed_access"));
    }

    static Stream<Arguments> grants() {
        List<Arguments> cases = new ArrayList<>();
        for (String type : List.of(ROLE, PROFILE_LIST)) {
            for (String permission : List.of(Permissions.SANDBOX_CONFIG_VIEW, Permissions.SANDBOX_CONFIG_EDIT,
                    "sandbox:config:*", "sandbox:*")) {
                cases.add(Arguments.of(type, permission));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest
    @MethodSource("grants")
    void viewEditAndWildcardsAreLetIn(String type, String permission) {
        given().header("Authorization", "Bearer " + TOKENS.token().permissions("notification:player:read", permission).sign())
                .when().get(path(SANDBOX, type)).then().statusCode(200)
                .body(equalTo("{\"transactions\":[],\"page_meta\":{\"page_size\":50,\"total\":0}}"));
    }

    @ParameterizedTest
    @ValueSource(strings = { ROLE, PROFILE_LIST })
    void tokenInTheAuthorizationCookieIsAccepted(String type) {
        given().cookie("Authorization", "bearer " + viewer().sign()).when().get(path(SANDBOX, type)).then().statusCode(200);
        given().header("Authorization", "Bearer " + viewer().rs256().sign()).when().get(path(SANDBOX, type))
                .then().statusCode(200);
    }

    /**
     * A token bound to sandboxes (a tenant's tools client) reads those alone: another sandbox is 403
     * {@code insufficient_permissions} in the 403 body of every refusal, before its input is read.
     */
    @ParameterizedTest
    @ValueSource(strings = { ROLE, PROFILE_LIST })
    void aTokenBoundToSandboxesReadsThoseAlone(String type) {
        UUID other = UUID.randomUUID();
        String bound = "Bearer " + viewer().claim("sandbox_ids", List.of(UUID.randomUUID().toString(),
                SANDBOX.toString())).sign();
        given().header("Authorization", bound).when().get(path(SANDBOX, type)).then().statusCode(200)
                .body(equalTo("{\"transactions\":[],\"page_meta\":{\"page_size\":50,\"total\":0}}"));
        given().header("Authorization", bound).when()
                .get("/v1/history/sandbox/" + SANDBOX.toString().toUpperCase() + "/" + type).then().statusCode(200);
        String refused = "{\"auth_success\":false,\"error_code\":\"insufficient_permissions\","
                + "\"desc\":\"The token is not bound to sandbox " + other + "\"}";
        given().header("Authorization", bound).when().get(path(other, type)).then().statusCode(403)
                .body(equalTo(refused));
        given().header("Authorization", bound).when().get(path(other, type) + "?page_size=0&cursor=x").then()
                .statusCode(403).body(equalTo(refused));
        // edit or a wildcard does not lift the binding
        given().header("Authorization", "Bearer " + TOKENS.token().permissions("sandbox:*")
                .claim("sandbox_ids", List.of(SANDBOX.toString())).sign()).when().get(path(other, type))
                .then().statusCode(403).body("error_code", is("insufficient_permissions"));
    }

    @ParameterizedTest
    @ValueSource(strings = { ROLE, PROFILE_LIST })
    void aTokenWithoutSandboxesReadsEverySandboxAndAnEmptyBindingNone(String type) {
        UUID other = UUID.randomUUID();
        given().header("Authorization", "Bearer " + viewer().sign()).when().get(path(other, type)).then()
                .statusCode(200);
        given().header("Authorization", "Bearer " + viewer().claim("sandbox_ids", List.of()).sign()).when()
                .get(path(SANDBOX, type)).then().statusCode(403).body("error_code", is("insufficient_permissions"));
    }

    static Stream<Arguments> malformedBindings() {
        List<Arguments> cases = new ArrayList<>();
        for (String type : List.of(ROLE, PROFILE_LIST)) {
            cases.add(Arguments.of(type, SANDBOX.toString()));
            cases.add(Arguments.of(type, List.of("not-a-uuid")));
            cases.add(Arguments.of(type, List.of(5)));
        }
        return cases.stream();
    }

    @ParameterizedTest
    @MethodSource("malformedBindings")
    void aMalformedBindingIsAnInvalidClaim(String type, Object sandboxIds) {
        given().header("Authorization", "Bearer " + viewer().claim("sandbox_ids", sandboxIds).sign()).when()
                .get(path(SANDBOX, type)).then().statusCode(403).body("error_code", is("auth_token_invalid_claim"));
    }
}
