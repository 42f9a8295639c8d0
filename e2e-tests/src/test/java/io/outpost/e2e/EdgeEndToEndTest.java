package io.outpost.e2e;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;

import io.outpost.testsupport.local.OutpostStack;

/**
 * The edge of the packaged stack, as ./run-local runs it: the gateway's URL is the public base URL, so discovery
 * fetched there names it as the issuer and every endpoint under it, a standard verifier configured from discovery
 * alone accepts the tokens, and client administration is reachable only on auth-service's admin port.
 */
class EdgeEndToEndTest {

    private static String base;
    private static OutpostStack stack;

    @BeforeAll
    static void start() {
        stack = E2eStack.get();
        base = stack.gatewayUrl();
    }

    @Test
    void discoveryThroughTheGatewayNamesTheGatewayAsIssuerAndEveryEndpointUnderIt() {
        for (String document : new String[] { "openid-configuration", "oauth-authorization-server" }) {
            Map<String, Object> metadata = given().get(base + "/.well-known/" + document).then().statusCode(200)
                    .extract().jsonPath().getMap("$");
            // OpenID Connect Discovery §4.3 / RFC 8414 §3.3: the issuer is the URL the document was fetched under
            assertThat(metadata).as(document).containsEntry("issuer", base);
            metadata.forEach((field, value) -> {
                if (field.endsWith("_endpoint") || field.endsWith("_uri")) {
                    assertThat((String) value).as(document + " " + field).startsWith(base + "/");
                }
            });
            given().get((String) metadata.get("jwks_uri")).then().statusCode(200);
        }
    }

    @Test
    void aStandardVerifierConfiguredFromDiscoveryAcceptsTheTokens() throws Exception {
        Map<String, Object> metadata = given().get(base + "/.well-known/openid-configuration").then().statusCode(200)
                .extract().jsonPath().getMap("$");
        String token = given().auth().preemptive().basic(E2eStack.GAME_CLIENT, E2eStack.GAME_SECRET)
                .formParam("grant_type", "client_credentials").when().post((String) metadata.get("token_endpoint"))
                .then().statusCode(200).extract().path("access_token");
        JWKSet keys = JWKSet.parse(given().get((String) metadata.get("jwks_uri")).then().extract().asString());

        DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
        processor.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(new JOSEObjectType("at+jwt")));
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(Set.of(JWSAlgorithm.ES256, JWSAlgorithm.RS256),
                new ImmutableJWKSet<>(keys)));
        processor.setJWTClaimsSetVerifier(new DefaultJWTClaimsVerifier<>("outpost",
                new JWTClaimsSet.Builder().issuer((String) metadata.get("issuer")).build(), Set.of("sub", "exp", "jti")));
        JWTClaimsSet claims = processor.process(token, null);
        assertThat(claims.getSubject()).isEqualTo(E2eStack.GAME_CLIENT);
        assertThat(claims.getStringClaim("player_uuid")).isEqualTo(E2eStack.PLAYER.toString());
    }

    @Test
    void clientAdministrationIsOnlyOnTheAdminPort() {
        String admin = given().auth().preemptive().basic(E2eStack.ADMIN_CLIENT, E2eStack.ADMIN_SECRET)
                .contentType("application/json").body("{\"grant_type\":\"client_credentials\"}")
                .post(base + "/users/v2/oauth/token").then().statusCode(200).extract().path("access_token");
        String notFound = "{\"error_code\":\"not_found\",\"desc\":\"No such resource\"}";
        assertThat(given().auth().oauth2(admin).get(base + "/users/v1/admin/clients").then().statusCode(404)
                .extract().asString()).isEqualTo(notFound);
        assertThat(given().auth().oauth2(admin).get(stack.service("auth-service").url() + "/users/v1/admin/clients")
                .then().statusCode(404).extract().asString()).isEqualTo(notFound);
        given().auth().oauth2(admin).get("http://127.0.0.1:" + E2eStack.ADMIN_PORT + "/users/v1/admin/clients")
                .then().statusCode(200);
    }
}
