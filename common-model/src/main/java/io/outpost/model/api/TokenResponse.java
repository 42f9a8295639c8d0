package io.outpost.model.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/** Spec §2.1. {@code refresh_token} is never issued for client_credentials (RFC 6749 §4.4.3) and then omitted. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TokenResponse(
        @JsonProperty("access_token") String accessToken,
        @JsonProperty("token_type") String tokenType,
        @JsonProperty("refresh_token") String refreshToken,
        @JsonProperty("expires_in") long expiresIn) {

    public static final String BEARER = "bearer";

    public static TokenResponse bearer(String accessToken, long expiresIn) {
        return new TokenResponse(accessToken, BEARER, null, expiresIn);
    }
}
