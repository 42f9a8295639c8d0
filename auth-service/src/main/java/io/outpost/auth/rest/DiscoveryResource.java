package io.outpost.auth.rest;

import java.util.List;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

import com.fasterxml.jackson.annotation.JsonProperty;

import io.outpost.auth.config.AuthConfig;
import io.outpost.auth.security.KeyRing;

/**
 * OpenID Connect discovery (and its OAuth 2.0 twin, RFC 8414): where the token endpoint and the key set are, so
 * that a standard client or verifier configures itself from the issuer's address alone.
 */
@Path("/.well-known")
@Produces(MediaType.APPLICATION_JSON)
public class DiscoveryResource {

    /** The discovery document (the fields this issuer supports). */
    public record Metadata(
            String issuer,
            @JsonProperty("token_endpoint") String tokenEndpoint,
            @JsonProperty("jwks_uri") String jwksUri,
            @JsonProperty("grant_types_supported") List<String> grantTypesSupported,
            @JsonProperty("token_endpoint_auth_methods_supported") List<String> tokenEndpointAuthMethodsSupported,
            @JsonProperty("response_types_supported") List<String> responseTypesSupported,
            @JsonProperty("subject_types_supported") List<String> subjectTypesSupported,
            @JsonProperty("id_token_signing_alg_values_supported") List<String> signingAlgorithms,
            @JsonProperty("claims_supported") List<String> claimsSupported,
            @JsonProperty("revocation_endpoint") String revocationEndpoint,
            @JsonProperty("revocation_endpoint_auth_methods_supported") List<String> revocationAuthMethods,
            @JsonProperty("introspection_endpoint") String introspectionEndpoint,
            @JsonProperty("introspection_endpoint_auth_methods_supported") List<String> introspectionAuthMethods) {
    }

    static final List<String> CLAIMS = List.of("iss", "sub", "aud", "exp", "iat", "jti", "client_id", "permissions",
            "player_uuid");

    private final AuthConfig config;
    private final KeyRing keys;

    public DiscoveryResource(AuthConfig config, KeyRing keys) {
        this.config = config;
        this.keys = keys;
    }

    @GET
    @Path("/openid-configuration")
    public Response openIdConfiguration(@Context UriInfo uri) {
        return Response.ok(metadata(uri)).header(HttpHeaders.CACHE_CONTROL, PublicKeysResource.CACHE).build();
    }

    @GET
    @Path("/oauth-authorization-server")
    public Response oauthAuthorizationServer(@Context UriInfo uri) {
        return openIdConfiguration(uri);
    }

    private Metadata metadata(UriInfo uri) {
        String base = config.publicBaseUrl().orElseGet(() -> uri.getBaseUri().toString());
        base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        return new Metadata(config.issuer(), base + "/users/v2/oauth/token", base + "/users/v1/publickeys",
                List.of("client_credentials"), List.of("client_secret_basic"), List.of("token"), List.of("public"),
                keys.algorithms(), CLAIMS, base + "/users/v2/oauth/revoke", List.of("client_secret_basic"),
                base + "/users/v2/oauth/introspect", List.of("client_secret_basic"));
    }
}
