package io.outpost.auth.service;

import jakarta.inject.Singleton;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * Per-client metrics of the token endpoint: {@code outpost_auth_tokens_issued_total{client_id}},
 * {@code outpost_auth_token_refusals_total{client_id,reason}} and {@code outpost_auth_throttled_total{client_id}}.
 * Only registered clients get their own label value; attempts for ids that do not exist count under
 * {@code unknown}, and attempts without readable credentials under {@code none}, so that nobody can grow the
 * number of series by sending made-up ids.
 */
@Singleton
public class AuthMetrics {

    static final String UNKNOWN = "unknown";
    static final String NONE = "none";

    private final MeterRegistry registry;

    public AuthMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public void issued(String clientId) {
        registry.counter("outpost.auth.tokens.issued", "client_id", clientId).increment();
    }

    public void refused(String clientId, String reason) {
        registry.counter("outpost.auth.token.refusals", "client_id", label(clientId, reason), "reason", reason)
                .increment();
    }

    public void throttled(String clientId) {
        registry.counter("outpost.auth.throttled", "client_id", clientId == null ? UNKNOWN : clientId).increment();
    }

    private static String label(String clientId, String reason) {
        if (clientId != null) {
            return clientId;
        }
        return reason.equals("malformed_credentials") ? NONE : UNKNOWN;
    }
}
