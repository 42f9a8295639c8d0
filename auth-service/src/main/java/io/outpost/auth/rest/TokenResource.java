package io.outpost.auth.rest;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.auth.security.TokenSigner;
import io.outpost.auth.service.ClientAuthenticator;
import io.outpost.auth.service.ClientAuthenticator.Granted;
import io.outpost.auth.service.ClientAuthenticator.Outcome;
import io.outpost.auth.service.ClientAuthenticator.Throttled;
import io.outpost.auth.service.ClientCredentials;
import io.outpost.auth.service.ClientSnapshot;
import io.outpost.model.api.TokenResponse;
import io.outpost.model.error.ErrorResponse;
import io.outpost.model.error.OAuthErrorResponse;
import io.outpost.support.http.InputParser;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;

/**
 * {@code POST /users/v2/oauth/token} (spec §4.1, DESIGN §2): the client_credentials grant. Input faults are 422
 * before anything else; then the client is authenticated (401 or 429) and a token is signed. Runs on the event
 * loop: the hot path touches neither the database nor the slow KDF.
 */
@Path("/users/v2/oauth/token")
public class TokenResource {

    static final String CLIENT_ADDRESS_HEADER = "x-svc-client-addr";
    static final int CLIENT_ADDRESS_MAX = 32;
    static final String REALM = "Basic realm=\"outpost\"";

    private final ClientAuthenticator authenticator;
    private final TokenSigner signer;
    private final GrantTypeReader grants;

    public TokenResource(ClientAuthenticator authenticator, TokenSigner signer, ObjectMapper mapper) {
        this.authenticator = authenticator;
        this.signer = signer;
        this.grants = new GrantTypeReader(mapper);
    }

    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<Response> token(@Context HttpServerRequest request, byte[] body) {
        InputParser in = new InputParser(request);
        String addressHint = in.header(CLIENT_ADDRESS_HEADER, CLIENT_ADDRESS_MAX);
        in.addAll(grants.check(request.getHeader(HttpHeaders.CONTENT_TYPE), body));
        in.throwIfInvalid();
        String address = addressHint != null && !addressHint.isBlank() ? addressHint.strip()
                : request.remoteAddress() == null ? "unknown" : request.remoteAddress().hostAddress();
        ClientCredentials credentials = BasicCredentials.parse(request.getHeader(HttpHeaders.AUTHORIZATION));
        return authenticator.authenticate(credentials, address).map(this::answer);
    }

    private Response answer(Outcome outcome) {
        if (outcome instanceof Granted granted) {
            ClientSnapshot client = granted.client();
            String token = signer.sign(client.clientId(), client.permissions(), client.playerUuid());
            return noStore(Response.ok(TokenResponse.bearer(token, signer.lifetimeSeconds())));
        }
        if (outcome instanceof Throttled throttled) {
            return noStore(Response.status(429).header(HttpHeaders.RETRY_AFTER, throttled.retryAfterSeconds())
                    .entity(new ErrorResponse(ErrorResponse.TOO_MANY_REQUESTS,
                            "Too many failed attempts; retry after " + throttled.retryAfterSeconds() + " s")));
        }
        return noStore(Response.status(Response.Status.UNAUTHORIZED).header(HttpHeaders.WWW_AUTHENTICATE, REALM)
                .entity(OAuthErrorResponse.invalidClient("Client authentication failed")));
    }

    /** RFC 6749 §5.1: token responses are never cached. */
    private static Response noStore(Response.ResponseBuilder builder) {
        return builder.type(MediaType.APPLICATION_JSON_TYPE).header(HttpHeaders.CACHE_CONTROL, "no-store")
                .header("Pragma", "no-cache").build();
    }
}
