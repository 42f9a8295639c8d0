package io.outpost.auth.rest;

import java.util.List;

import jakarta.inject.Singleton;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import io.outpost.auth.service.AuditTrail;
import io.outpost.auth.service.AuthMetrics;
import io.outpost.auth.service.ClientAuthenticator;
import io.outpost.auth.service.ClientAuthenticator.Outcome;
import io.outpost.auth.service.ClientAuthenticator.Refused;
import io.outpost.auth.service.ClientAuthenticator.Throttled;
import io.outpost.auth.service.ClientCredentials;
import io.outpost.model.error.ErrorResponse;
import io.outpost.model.error.OAuthErrorResponse;
import io.outpost.support.http.ClientAddress;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;

/**
 * Client authentication as the OAuth endpoints answer it (token, revocation, introspection): Basic credentials,
 * the client address failures count against, and the answers of a refusal — 401 {@code invalid_client}, 429 when
 * throttled, 503 when the slow checks are saturated — each with {@code Cache-Control: no-store}.
 *
 * <p>Failures count against the address this service can vouch for ({@link ClientAddress}): the TCP peer, or the
 * right-most {@code X-Forwarded-For} entry that is not a trusted proxy ({@code quarkus.http.proxy.trusted-proxies}),
 * whether the edge replaces the header or appends to it. The caller's own {@code x-svc-client-addr} is a hint: checked (at most
 * 32 characters, UTF-8, no control character), written beside the address into the audit line of every refused
 * authentication, and never a throttle key — a caller could otherwise name a new address on every attempt, or a
 * victim's.
 */
@Singleton
public class ClientAuthentication {

    static final String CLIENT_ADDRESS_HEADER = "x-svc-client-addr";
    static final int CLIENT_ADDRESS_MAX = 32;
    static final String REALM = "Basic realm=\"outpost\"";
    static final String SECRET_CHECKS_BUSY = "secret_checks_busy";

    private final ClientAuthenticator authenticator;
    private final AuthMetrics metrics;
    private final AuditTrail audit;
    private final ClientAddress clientAddress;

    public ClientAuthentication(ClientAuthenticator authenticator, AuthMetrics metrics, AuditTrail audit,
            ClientAddress clientAddress) {
        this.authenticator = authenticator;
        this.metrics = metrics;
        this.audit = audit;
        this.clientAddress = clientAddress;
    }

    /** Authenticates the request's client; {@code addressHint} is the checked {@code x-svc-client-addr}, or null. */
    public Uni<Outcome> authenticate(HttpServerRequest request, String addressHint) {
        String address = clientAddress.of(request);
        // two credentials in one request are no credentials: which one a proxy or a log looked at cannot be known
        List<String> authorization = request.headers().getAll(HttpHeaders.AUTHORIZATION);
        ClientCredentials credentials = authorization.size() == 1 ? BasicCredentials.parse(authorization.get(0)) : null;
        return authenticator.authenticate(credentials, address)
                .invoke(outcome -> {
                    if (outcome instanceof Refused refused) {
                        metrics.refused(refused.clientId(), refused.reason());
                        audit.logged(List.of(audit.event(null, "client.authentication_refused", refused.clientId(),
                                "reason", refused.reason(), "address", address, "client_addr_hint", addressHint)));
                    } else if (outcome instanceof Throttled throttled) {
                        metrics.throttled(throttled.clientId());
                    }
                });
    }

    /** The answer to an outcome other than a grant. */
    public static Response refusal(Outcome outcome) {
        if (outcome instanceof Throttled throttled) {
            return tooMany(throttled.retryAfterSeconds(), "Too many failed attempts");
        }
        if (outcome instanceof ClientAuthenticator.Busy) {
            return noStore(Response.status(Response.Status.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, 1)
                    .entity(new ErrorResponse(SECRET_CHECKS_BUSY,
                            "Too many secret checks are waiting; retry after 1 s")));
        }
        return noStore(Response.status(Response.Status.UNAUTHORIZED).header(HttpHeaders.WWW_AUTHENTICATE, REALM)
                .entity(OAuthErrorResponse.invalidClient("Client authentication failed")));
    }

    /** 429 {@code too_many_requests} with {@code Retry-After}: "{@code what}; retry after N s". */
    public static Response tooMany(long retryAfterSeconds, String what) {
        return noStore(Response.status(429).header(HttpHeaders.RETRY_AFTER, retryAfterSeconds)
                .entity(new ErrorResponse(ErrorResponse.TOO_MANY_REQUESTS,
                        what + "; retry after " + retryAfterSeconds + " s")));
    }

    /** RFC 6749 §5.1: answers that carry a token, a secret or a client's state are never cached. */
    public static Response noStore(Response.ResponseBuilder builder) {
        return builder.type(MediaType.APPLICATION_JSON_TYPE).header(HttpHeaders.CACHE_CONTROL, "no-store")
                .header("Pragma", "no-cache").build();
    }
}
