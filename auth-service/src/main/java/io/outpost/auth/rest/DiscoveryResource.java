package io.outpost.auth.rest;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import io.outpost.auth.config.AuthConfig;
import io.outpost.auth.security.KeyRing;

/**
 * Authorization server metadata (RFC 8414) and its OpenID Connect Discovery twin: where the token endpoint and
 * the key set are, so that a standard client configures itself from the issuer's address alone. Every URL derives
 * from {@code outpost.auth.public-base-url}, never from the request: behind the ingress the documents name the
 * addresses clients use, whatever headers a request carries. They claim only what Outpost does: the
 * client_credentials grant at the token endpoint, no authorization endpoint (so no response types) and no ID
 * tokens beyond the fields OpenID Connect Discovery requires. Revocation (RFC 7009) and introspection (RFC 7662)
 * are named as RFC 8414 §2 and RFC 7009/7662 register them.
 */
@Path("/.well-known")
@Produces(MediaType.APPLICATION_JSON)
public class DiscoveryResource {

    static final String TOKEN_PATH = "/users/v2/oauth/token";
    static final String JWKS_PATH = "/users/v1/publickeys";
    static final String REVOCATION_PATH = "/users/v2/oauth/revoke";
    static final String INTROSPECTION_PATH = "/users/v2/oauth/introspect";

    private final AuthConfig config;
    private final KeyRing keys;

    public DiscoveryResource(AuthConfig config, KeyRing keys) {
        this.config = config;
        this.keys = keys;
    }

    /** RFC 8414 §3. */
    @GET
    @Path("/oauth-authorization-server")
    public Response authorizationServer() {
        return cacheable(authorizationServerMetadata());
    }

    /** OpenID Connect Discovery 1.0 §4: RFC 8414's fields plus the two it makes required. */
    @GET
    @Path("/openid-configuration")
    public Response openIdConfiguration() {
        Map<String, Object> metadata = authorizationServerMetadata();
        metadata.put("subject_types_supported", List.of("public"));
        // required by OpenID Connect Discovery even for a provider that issues no ID token: the algorithms it signs with
        metadata.put("id_token_signing_alg_values_supported", keys.algorithms());
        return cacheable(metadata);
    }

    private Map<String, Object> authorizationServerMetadata() {
        String base = stripSlash(config.publicBaseUrl());
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("issuer", config.issuer());
        metadata.put("token_endpoint", base + TOKEN_PATH);
        metadata.put("jwks_uri", base + JWKS_PATH);
        metadata.put("grant_types_supported", List.of("client_credentials"));
        metadata.put("token_endpoint_auth_methods_supported", List.of("client_secret_basic"));
        metadata.put("revocation_endpoint", base + REVOCATION_PATH);
        metadata.put("revocation_endpoint_auth_methods_supported", List.of("client_secret_basic"));
        metadata.put("introspection_endpoint", base + INTROSPECTION_PATH);
        metadata.put("introspection_endpoint_auth_methods_supported", List.of("client_secret_basic"));
        // required by both specifications; Outpost has no authorization endpoint, so it supports none
        metadata.put("response_types_supported", List.of());
        return metadata;
    }

    private static Response cacheable(Map<String, Object> metadata) {
        return Response.ok(metadata).header(HttpHeaders.CACHE_CONTROL, PublicKeysResource.CACHE).build();
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
