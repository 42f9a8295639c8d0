package io.outpost.support.security;

import java.util.UUID;

import jakarta.enterprise.context.RequestScoped;

import io.outpost.model.error.AuthErrorCode;

/** The verified token of the current request, set by {@link BearerTokenFilter} on guarded endpoints. */
@RequestScoped
public class Caller {

    private VerifiedToken token;

    void set(VerifiedToken token) {
        this.token = token;
    }

    public VerifiedToken token() {
        if (token == null) {
            throw new IllegalStateException("no verified token: is the endpoint annotated with @RequirePermission?");
        }
        return token;
    }

    /**
     * Refuses, with the 403 {@code insufficient_permissions} of docs/history.md ("Access"), a token bound to
     * sandboxes that do not include
     * {@code sandbox} (a tenant's client reading another tenant's sandbox); a token bound to none passes.
     */
    public void requireSandbox(UUID sandbox) {
        if (!token().reaches(sandbox)) {
            throw new AuthRefusedException(AuthErrorCode.INSUFFICIENT_PERMISSIONS,
                    "The token is not bound to sandbox " + sandbox);
        }
    }

    /** The token's player; only on endpoints with {@code @RequirePermission(player = true)}. */
    public UUID player() {
        return token().player().orElseThrow();
    }
}
