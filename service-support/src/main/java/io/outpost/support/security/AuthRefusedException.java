package io.outpost.support.security;

import io.outpost.model.error.AuthErrorCode;

/** A refused token or permission: answered 403 with {@code auth_success: false} and the code (DESIGN §3). */
public class AuthRefusedException extends RuntimeException {

    private final AuthErrorCode code;

    public AuthRefusedException(AuthErrorCode code, String description) {
        super(description, null, false, false);
        this.code = code;
    }

    public AuthErrorCode code() {
        return code;
    }
}
