package io.outpost.auth.edge;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.outpost.auth.GatewayInFront;
import io.outpost.auth.TestClients;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * Discovery (OpenID Connect Discovery 1.0 and RFC 8414): every URL derives from the public base URL, here the
 * gateway in front of the service, and works there; the documents claim only what Outpost does. The issuer is
 * pinned apart in the test profile (tokens of the other tests carry it); e2e-tests shows it equal to the gateway's
 * URL in the packaged stack.
 */
@QuarkusTest
class DiscoveryTest {

    private static final String ISSUER = "http://localhost:8080";

    @Test
    void authorizationServerMetadataNamesThePublicUrlsAndOnlyWhatOutpostDoes() {
        String base = GatewayInFront.url();
        Map<String, Object> metadata = document(base + "/.well-known/oauth-authorization-server");
        assertThat(metadata).containsExactly(
                Map.entry("issuer", ISSUER),
                Map.entry("token_endpoint", base + "/users/v2/oauth/token"),
                Map.entry("jwks_uri", base + "/users/v1/publickeys"),
                Map.entry("grant_types_supported", List.of("client_credentials")),
                Map.entry("token_endpoint_auth_methods_supported", List.of("client_secret_basic")),
                Map.entry("revocation_endpoint", base + "/users/v2/oauth/revoke"),
                Map.entry("revocation_endpoint_auth_methods_supported", List.of("client_secret_basic")),
                Map.entry("introspection_endpoint", base + "/users/v2/oauth/introspect"),
                Map.entry("introspection_endpoint_auth_methods_supported", List.of("client_secret_basic")),
                Map.entry("response_types_supported", List.of()));
    }

    @Test
    void openIdConfigurationAddsOnlyTheFieldsOpenIdConnectRequires() {
        String base = GatewayInFront.url();
        Map<String, Object> metadata = document(base + "/.well-known/openid-configuration");
        Map<String, Object> rfc8414 = document(base + "/.well-known/oauth-authorization-server");
        assertThat(metadata).containsAllEntriesOf(rfc8414)
                .containsEntry("subject_types_supported", List.of("public"))
                .containsEntry("id_token_signing_alg_values_supported", List.of("ES256"))
                .hasSize(rfc8414.size() + 2);
    }

    @Test
    void everyAdvertisedEndpointWorksThroughTheGateway() {
        String base = GatewayInFront.url();
        Map<String, Object> metadata = document(base + "/.well-known/openid-configuration");
        metadata.forEach((field, value) -> {
            if (field.endsWith("_endpoint") || field.endsWith("_uri")) {
                assertThat((String) value).as(field).startsWith(base + "/");
            }
        });
        given().get((String) metadata.get("jwks_uri")).then().statusCode(200).contentType("application/json");
        TestClients.tokenRequest(TestClients.BACKEND, TestClients.BACKEND_SECRET)
                .post((String) metadata.get("token_endpoint")).then().statusCode(200);
    }

    @Test
    void documentsDoNotFollowTheHostARequestClaims() {
        String base = GatewayInFront.url();
        Map<String, Object> direct = given().header("X-Forwarded-Host", "evil.example")
                .header("X-Forwarded-Proto", "https").header("Host", "evil.example")
                .get("/.well-known/openid-configuration").then().statusCode(200).extract().jsonPath().getMap("$");
        assertThat(direct).containsEntry("token_endpoint", base + "/users/v2/oauth/token")
                .containsEntry("jwks_uri", base + "/users/v1/publickeys");
    }

    private static Map<String, Object> document(String url) {
        Response response = given().get(url);
        response.then().statusCode(200).contentType("application/json").header("Cache-Control", "public, max-age=300");
        return response.jsonPath().getMap("$");
    }
}
