package io.outpost.model.error;

/** The {@code error_code} values of a refused token or permission (DESIGN §2, §3). */
public enum AuthErrorCode {
    /** No token, or one that cannot be read as a bearer credential. */
    MALFORMED_ACCESS("auth_malformed_access"),
    NOT_JWT("auth_not_jwt"),
    TOKEN_FORMAT("auth_token_format"),
    TOKEN_EXPIRED("auth_token_expired"),
    TOKEN_SIG_INVALID("auth_token_sig_invalid"),
    INVALID_KEY_ID("auth_invalid_key_id"),
    TOKEN_INVALID_CLAIM("auth_token_invalid_claim"),
    TOKEN_INVALID_TYPE("auth_token_invalid_type"),
    TOKEN_UNKNOWN("auth_token_unknown"),
    INSUFFICIENT_PERMISSIONS("insufficient_permissions"),
    /** The token has no player where a player endpoint needs one. */
    INVALID_TOKEN_CLAIMS("invalid_token_claims"),
    /** Token endpoint: unknown client, wrong secret, disabled client or unreadable Basic credentials. */
    INVALID_CLIENT("auth_invalid_client");

    private final String code;

    AuthErrorCode(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }
}
