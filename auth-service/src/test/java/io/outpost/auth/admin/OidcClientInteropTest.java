package io.outpost.auth.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.hasItem;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.outpost.auth.GatewayInFront;
import io.outpost.auth.JwtTestSupport;
import io.outpost.auth.TestClients;
import io.quarkus.oidc.client.OidcClient;
import io.quarkus.oidc.client.OidcClientConfigBuilder;
import io.quarkus.oidc.client.OidcClients;
import io.quarkus.oidc.client.Tokens;
import io.quarkus.oidc.client.runtime.OidcClientConfig.Grant;
import io.quarkus.test.junit.QuarkusTest;

/**
 * A standard OAuth2 client — quarkus-oidc-client, configured with nothing but the public address (the gateway in
 * front of the service, as the ingress is in Kubernetes), a client id and secret — discovers the token endpoint
 * through the gateway, obtains a token there (Basic credentials, form-encoded grant), and that token is accepted: by
 * the platform's own verifier on a guarded endpoint and by an independent JOSE library.
 */
@QuarkusTest
class OidcClientInteropTest {

    @Inject
    OidcClients clients;

    @Test
    void tokenFromAStandardClientConfiguredByDiscoveryIsAccepted() throws Exception {
        String server = GatewayInFront.url();
        OidcClient client = clients.newClient(new OidcClientConfigBuilder()
                .id("outpost-interop")
                .authServerUrl(server)
                .clientId(TestClients.ADMIN)
                .credentials(TestClients.ADMIN_SECRET)
                .grant(Grant.Type.CLIENT)
                .build()).await().atMost(Duration.ofSeconds(30));
        Tokens tokens = client.getTokens().await().atMost(Duration.ofSeconds(30));

        assertThat(tokens.getAccessToken()).isNotBlank();
        assertThat(tokens.getRefreshToken()).isNull();
        assertThat(tokens.getAccessTokenExpiresAt()).isBetween(System.currentTimeMillis() / 1000 + 3500,
                System.currentTimeMillis() / 1000 + 3700);
        // accepted by the platform's bearer verifier (DESIGN §3) on an endpoint that needs auth:clients:admin
        TestClients.adminApi().auth().oauth2(tokens.getAccessToken()).get("/users/v1/admin/clients")
                .then().statusCode(200).body("clients.client_id", hasItem(TestClients.ADMIN));
        // and by a resource server built on another JOSE library
        assertThat(JwtTestSupport.verify(tokens.getAccessToken(), JwtTestSupport.publishedKeys()).getSubject())
                .isEqualTo(TestClients.ADMIN);
        client.close();
    }
}
