package io.outpost.auth.rest;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.auth.config.AuthConfig;
import io.outpost.auth.service.ClientAuthenticator.Granted;
import io.outpost.auth.service.ClientDirectory;
import io.outpost.auth.service.ClientSnapshot;
import io.outpost.model.error.AuthErrorCode;
import io.outpost.model.error.OAuthErrorResponse;
import io.outpost.support.http.InputParser;
import io.outpost.support.security.AuthRefusedException;
import io.outpost.support.security.PermissionMatcher;
import io.outpost.support.security.TokenVerifier;
import io.outpost.support.security.VerifiedToken;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;

/**
 * {@code POST /users/v2/oauth/introspect} (RFC 7662), for resource servers that cannot verify JWTs themselves. The
 * caller authenticates as a client (Basic, as at the token endpoint) holding {@value #PERMISSION} (granted only by
 * that exact entry, never a wildcard); body {@code token=…} or {@code {"token":"…"}}. A token is active when the
 * shared verifier accepts it (signature, key still published, times, issuer, audience, type, not revoked) and its
 * client is, in this service's own registry, still enabled and not revoked since the token was issued — so the
 * answer is authoritative even while the revocation topic lags. Anything else answers {@code {"active":false}}.
 */
@Path("/users/v2/oauth/introspect")
public class IntrospectionResource {

    /** The permission a caller of introspection needs. */
    public static final String PERMISSION = "auth:tokens:introspect";
    private static final Map<String, Object> INACTIVE = Map.of("active", false);

    private final ClientAuthentication clients;
    private final TokenVerifier verifier;
    private final ClientDirectory directory;
    private final FormOrJsonBody bodies;
    private final String issuer;
    private final String audience;

    public IntrospectionResource(ClientAuthentication clients, TokenVerifier verifier, ClientDirectory directory,
            ObjectMapper mapper, AuthConfig config) {
        this.clients = clients;
        this.verifier = verifier;
        this.directory = directory;
        this.bodies = new FormOrJsonBody(mapper);
        this.issuer = config.issuer();
        this.audience = config.audience();
    }

    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<Response> introspect(@Context HttpServerRequest request, byte[] body) {
        InputParser in = new InputParser(request);
        String addressHint = in.header(ClientAuthentication.CLIENT_ADDRESS_HEADER, ClientAuthentication.CLIENT_ADDRESS_MAX);
        String token = RevocationResource.tokenField(bodies, request, body, in);
        in.throwIfInvalid();
        return clients.authenticate(request, addressHint).flatMap(outcome -> {
            if (!(outcome instanceof Granted granted)) {
                return Uni.createFrom().item(ClientAuthentication.refusal(outcome));
            }
            if (!PermissionMatcher.grantsAny(granted.client().permissions(), List.of(PERMISSION))) {
                String desc = "The client lacks the permission " + PERMISSION;
                return Uni.createFrom().item(ClientAuthentication.noStore(Response.status(Response.Status.FORBIDDEN)
                        .entity(new OAuthErrorResponse("insufficient_scope", desc, false,
                                AuthErrorCode.INSUFFICIENT_PERMISSIONS.code(), desc))));
            }
            return verifier.verify(token).onFailure(AuthRefusedException.class).recoverWithNull()
                    .flatMap(this::describe)
                    .map(answer -> ClientAuthentication.noStore(Response.ok(answer)));
        });
    }

    private Uni<Map<String, Object>> describe(VerifiedToken token) {
        if (token == null) {
            return Uni.createFrom().item(INACTIVE);
        }
        return directory.lookup(token.clientId()).map(entry -> {
            ClientSnapshot client = entry.client();
            if (client == null || !client.enabled() || client.tokensRevokedBefore() != null
                    && token.issuedAt().isBefore(client.tokensRevokedBefore())) {
                return INACTIVE;
            }
            Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("active", true);
            answer.put("client_id", token.clientId());
            answer.put("sub", token.subject());
            answer.put("scope", String.join(" ", token.permissions()));
            answer.put("permissions", token.permissions());
            answer.put("token_type", "Bearer");
            answer.put("iss", issuer);
            answer.put("aud", audience);
            answer.put("iat", token.issuedAt().getEpochSecond());
            answer.put("exp", token.expiresAt().getEpochSecond());
            answer.put("jti", token.jti());
            if (token.playerUuid() != null) {
                answer.put("player_uuid", token.playerUuid());
            }
            if (token.sandboxIds() != null) {
                answer.put("sandbox_ids", token.sandboxIds().stream().map(UUID::toString).toList());
            }
            return answer;
        });
    }
}
