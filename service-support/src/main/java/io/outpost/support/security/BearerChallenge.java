package io.outpost.support.security;

import java.util.Set;

import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

import org.jboss.resteasy.reactive.server.ServerResponseFilter;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.model.error.AuthErrorCode;
import io.outpost.model.error.AuthErrorResponse;

/**
 * Adds RFC 6750 §3's {@code WWW-Authenticate: Bearer} challenge to every refusal of a bearer token (DESIGN §3
 * keeps the 403 and its body) and counts refusals by code ({@code outpost_auth_refusals_total{error_code}}).
 * {@code error} is {@code invalid_token} for a token that cannot be accepted, {@code insufficient_scope} for one
 * that lacks a permission or a player; a request without a bearer token (none, or another scheme) gets the
 * challenge without {@code error}, as RFC 6750 §3.1 asks.
 */
public class BearerChallenge {

    static final String REALM = "Bearer realm=\"outpost\"";
    private static final Set<String> SCOPE = Set.of(AuthErrorCode.INSUFFICIENT_PERMISSIONS.code(),
            AuthErrorCode.INVALID_TOKEN_CLAIMS.code());

    private final MeterRegistry registry;

    public BearerChallenge(MeterRegistry registry) {
        this.registry = registry;
    }

    @ServerResponseFilter
    public void challenge(ContainerResponseContext response) {
        if (response.getStatus() != Response.Status.FORBIDDEN.getStatusCode()
                || !(response.getEntity() instanceof AuthErrorResponse refusal)) {
            return;
        }
        response.getHeaders().putSingle(HttpHeaders.WWW_AUTHENTICATE, challenge(registry, refusal));
    }

    /** Counts {@code refusal} and answers its {@code WWW-Authenticate} value: for endpoints below Quarkus REST too. */
    public static String challenge(MeterRegistry registry, AuthErrorResponse refusal) {
        registry.counter("outpost.auth.refusals", "error_code", refusal.errorCode()).increment();
        return header(refusal);
    }

    static String header(AuthErrorResponse refusal) {
        String code = refusal.errorCode();
        if (code.equals(AuthErrorCode.MALFORMED_ACCESS.code())) {
            return REALM;
        }
        String error = SCOPE.contains(code) ? "insufficient_scope" : "invalid_token";
        return REALM + ", error=\"" + error + "\", error_description=\"" + refusal.desc().replace("\"", "'") + "\"";
    }
}
