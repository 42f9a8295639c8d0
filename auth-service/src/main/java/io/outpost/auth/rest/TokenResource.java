package io.outpost.auth.rest;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.auth.security.TokenSigner;
import io.outpost.auth.service.AuthMetrics;
import io.outpost.auth.service.ClientAuthenticator.Granted;
import io.outpost.auth.service.ClientSnapshot;
import io.outpost.model.api.TokenResponse;
import io.outpost.model.error.ErrorDetail;
import io.outpost.support.http.InputParser;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;

/**
 * {@code POST /users/v2/oauth/token} (spec §4.1, DESIGN §2): the client_credentials grant. Input faults are 422
 * before anything else; then the client is authenticated (401, 429 or 503) and a token is signed. Runs on the event
 * loop: the hot path touches neither the database nor the slow KDF.
 */
@Path("/users/v2/oauth/token")
public class TokenResource {

    static final String CLIENT_CREDENTIALS = "client_credentials";

    private final ClientAuthentication clients;
    private final TokenSigner signer;
    private final AuthMetrics metrics;
    private final FormOrJsonBody bodies;
    private final Clock clock;

    public TokenResource(ClientAuthentication clients, TokenSigner signer, AuthMetrics metrics, ObjectMapper mapper,
            Clock clock) {
        this.clock = clock;
        this.clients = clients;
        this.signer = signer;
        this.metrics = metrics;
        this.bodies = new FormOrJsonBody(mapper);
    }

    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<Response> token(@Context HttpServerRequest request, byte[] body) {
        InputParser in = new InputParser(request);
        String addressHint = in.header(ClientAuthentication.CLIENT_ADDRESS_HEADER, ClientAuthentication.CLIENT_ADDRESS_MAX);
        List<ErrorDetail> faults = new ArrayList<>(1);
        JsonNode grant = bodies.field(request.getHeader(HttpHeaders.CONTENT_TYPE), body, "grant_type", faults);
        // a number, null, array or object is as wrong as another string
        if (grant != null && !(grant.isTextual() && CLIENT_CREDENTIALS.equals(grant.asText()))) {
            faults.add(ErrorDetail.literal(ErrorDetail.loc("body", "grant_type"), CLIENT_CREDENTIALS));
        }
        in.addAll(faults);
        in.throwIfInvalid();
        return clients.authenticate(request, addressHint).flatMap(outcome -> {
            if (!(outcome instanceof Granted granted)) {
                return Uni.createFrom().item(ClientAuthentication.refusal(outcome));
            }
            ClientSnapshot client = granted.client();
            Uni<Response> issued = Uni.createFrom().item(() -> issue(client));
            // right after a client-wide revocation its cut-off lies ahead (ClientAdmin): a token issued before it
            // would be revoked at birth, one dated after it would carry an iat in the future, which verifiers
            // may refuse; so the answer waits for it (at most 2 × client-cache-ttl + 1 s)
            Instant cutoff = client.tokensRevokedBefore();
            Duration wait = cutoff == null ? Duration.ZERO : Duration.between(clock.instant(), cutoff);
            return wait.isNegative() || wait.isZero() ? issued : issued.onItem().delayIt().by(wait);
        });
    }

    private Response issue(ClientSnapshot client) {
        String token = signer.sign(client.clientId(), client.permissions(), client.playerUuid(),
                client.sandboxIds(), client.tokensRevokedBefore());
        metrics.issued(client.clientId());
        return ClientAuthentication.noStore(Response.ok(TokenResponse.bearer(token, signer.lifetimeSeconds())));
    }
}
