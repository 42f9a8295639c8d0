package io.outpost.model.error;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Body of a 401 from the token endpoint (DESIGN §2). It carries both vocabularies: RFC 6749 §5.2
 * ({@code error}, {@code error_description}) for OAuth2 libraries, and {@code auth_success}/{@code error_code}/
 * {@code desc} for game SDKs.
 */
public record OAuthErrorResponse(
        String error,
        @JsonProperty("error_description") String errorDescription,
        @JsonProperty("auth_success") boolean authSuccess,
        @JsonProperty("error_code") String errorCode,
        String desc) {

    public static OAuthErrorResponse invalidClient(String description) {
        return new OAuthErrorResponse("invalid_client", description, false, AuthErrorCode.INVALID_CLIENT.code(),
                description);
    }
}
