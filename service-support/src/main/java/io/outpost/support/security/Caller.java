package io.outpost.support.security;

import java.util.UUID;

import jakarta.enterprise.context.RequestScoped;

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

    /** The token's player; only on endpoints with {@code @RequirePermission(player = true)}. */
    public UUID player() {
        return token().player().orElseThrow();
    }
}
