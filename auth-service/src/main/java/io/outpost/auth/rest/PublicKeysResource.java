package io.outpost.auth.rest;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import io.outpost.auth.security.KeyRing;
import io.outpost.model.error.AuthErrorCode;
import io.outpost.model.error.AuthErrorResponse;

/**
 * The public keys that verify access tokens (DESIGN §2): the JWK Set and one key by id. Verifiers cache them;
 * a few minutes' caching is allowed so that a key published before it signs reaches them in time.
 */
@Path("/users/v1/publickeys")
@Produces(MediaType.APPLICATION_JSON)
public class PublicKeysResource {

    static final String JWK_SET_TYPE = "application/jwk-set+json";

    private final KeyRing keys;

    public PublicKeysResource(KeyRing keys) {
        this.keys = keys;
    }

    @GET
    public Response keySet() {
        return Response.ok(keys.jwks(), MediaType.APPLICATION_JSON_TYPE).header(HttpHeaders.CACHE_CONTROL, CACHE).build();
    }

    @GET
    @Path("/{kid}")
    public Response key(@PathParam("kid") String kid) {
        return keys.jwk(kid)
                .map(jwk -> Response.ok(jwk, MediaType.APPLICATION_JSON_TYPE).header(HttpHeaders.CACHE_CONTROL, CACHE).build())
                .orElseGet(() -> Response.status(Response.Status.NOT_FOUND).type(MediaType.APPLICATION_JSON_TYPE)
                        .entity(AuthErrorResponse.of(AuthErrorCode.INVALID_KEY_ID, "No published key has this id"))
                        .build());
    }

    /** Public documents that verifiers may keep for a while. */
    static final String CACHE = "public, max-age=300";
}
