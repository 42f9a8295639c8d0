package io.outpost.model.error;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Body of a refused bearer token or permission (403, DESIGN §3). Game SDKs refresh their token when
 * {@code auth_success} is false, so it is always present and always false.
 */
public record AuthErrorResponse(
        @JsonProperty("auth_success") boolean authSuccess,
        @JsonProperty("error_code") String errorCode,
        String desc) {

    public static AuthErrorResponse of(AuthErrorCode code, String desc) {
        return new AuthErrorResponse(false, code.code(), desc);
    }
}
