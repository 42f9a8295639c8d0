package io.outpost.auth.rest;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.auth.service.ClientAdmin;
import io.outpost.auth.service.ClientAuthenticator.Granted;
import io.outpost.auth.service.RevocationThrottle;
import io.outpost.model.error.ErrorDetail;
import io.outpost.support.http.InputParser;
import io.outpost.support.security.AuthRefusedException;
import io.outpost.support.security.TokenVerifier;
import io.outpost.support.security.VerifiedToken;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;

/**
 * {@code POST /users/v2/oauth/revoke} (RFC 7009): a client revokes one of its own access tokens, authenticating as
 * at the token endpoint; body {@code token=…} (form, as RFC 7009 sends it) or {@code {"token":"…"}}. Answers 200
 * whether or not the token was valid (there is nothing a client could do about an invalid one); a valid token of
 * another client is refused with 400 {@code unauthorized_client} (RFC 7009 §2.1). The revocation reaches every
 * verifier through the revocation topic (docs/auth.md). An authenticated client's revocation calls are rationed
 * ({@link RevocationThrottle}): past its burst, 429 {@code too_many_requests} with {@code Retry-After}.
 */
@Path("/users/v2/oauth/revoke")
public class RevocationResource {

    private final ClientAuthentication clients;
    private final TokenVerifier verifier;
    private final ClientAdmin admin;
    private final FormOrJsonBody bodies;
    private final RevocationThrottle throttle;

    public RevocationResource(ClientAuthentication clients, TokenVerifier verifier, ClientAdmin admin,
            RevocationThrottle throttle, ObjectMapper mapper) {
        this.throttle = throttle;
        this.clients = clients;
        this.verifier = verifier;
        this.admin = admin;
        this.bodies = new FormOrJsonBody(mapper);
    }

    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<Response> revoke(@Context HttpServerRequest request, byte[] body) {
        InputParser in = new InputParser(request);
        String addressHint = in.header(ClientAuthentication.CLIENT_ADDRESS_HEADER, ClientAuthentication.CLIENT_ADDRESS_MAX);
        String token = tokenField(bodies, request, body, in);
        in.throwIfInvalid();
        return clients.authenticate(request, addressHint).flatMap(outcome -> {
            if (!(outcome instanceof Granted granted)) {
                return Uni.createFrom().item(ClientAuthentication.refusal(outcome));
            }
            String caller = granted.client().clientId();
            OptionalLong wait = throttle.acquire(caller);
            if (wait.isPresent()) {
                return Uni.createFrom().item(ClientAuthentication.tooMany(wait.getAsLong(), "Too many revocations"));
            }
            return verifier.verify(token).onFailure(AuthRefusedException.class).recoverWithNull()
                    .flatMap(verified -> revokeIfOwn(caller, verified));
        });
    }

    private Uni<Response> revokeIfOwn(String caller, VerifiedToken verified) {
        if (verified == null || verified.jti() == null) {
            return Uni.createFrom().item(ok()); // invalid, expired or already revoked: nothing to do
        }
        if (!caller.equals(verified.clientId())) {
            return Uni.createFrom().item(ClientAuthentication.noStore(Response.status(Response.Status.BAD_REQUEST)
                    .entity(new OAuthError("unauthorized_client", "The token was not issued to this client"))));
        }
        return admin.revokeToken(caller, verified.jti(), verified.issuedAt(), verified.expiresAt())
                .map(ignored -> ok());
    }

    /** The {@code token} field of a revocation or introspection body (a string), with its faults. */
    static String tokenField(FormOrJsonBody bodies, HttpServerRequest request, byte[] body, InputParser in) {
        List<ErrorDetail> faults = new ArrayList<>(1);
        var token = bodies.field(request.getHeader(HttpHeaders.CONTENT_TYPE), body, "token", faults);
        if (token != null && !token.isTextual()) {
            faults.add(ErrorDetail.jsonInvalid(ErrorDetail.loc("body", "token"), "Input should be a valid string"));
        }
        in.addAll(faults);
        return token == null || !token.isTextual() ? null : token.asText();
    }

    private static Response ok() {
        return ClientAuthentication.noStore(Response.ok("{}"));
    }

    /** RFC 6749 §5.2 error body. */
    record OAuthError(String error, @com.fasterxml.jackson.annotation.JsonProperty("error_description") String description) {
    }
}
