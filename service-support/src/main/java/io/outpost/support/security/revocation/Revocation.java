package io.outpost.support.security.revocation;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One record of the revocation feed (topic {@code auth-token-revocations}, compacted; docs/auth.md): either one
 * token ({@code type: token}, by {@code jti}) or every token of a client issued before a time ({@code type:
 * client}). auth-service publishes them; every verifier reads them. Times are seconds since the epoch.
 *
 * @param issuedBefore for {@code client}: tokens whose {@code iat} is before this are revoked
 * @param expiresAt    when the revocation stops mattering: the token's {@code exp}, or {@code issued_before}
 *                     plus the longest token lifetime
 * @param reason       why (for people reading the topic): {@code revoked}, {@code disabled}, {@code secret_rotated}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Revocation(
        String type,
        String jti,
        @JsonProperty("client_id") String clientId,
        @JsonProperty("issued_before") Long issuedBefore,
        @JsonProperty("expires_at") Long expiresAt,
        String reason) {

    public static final String TOKEN = "token";
    public static final String CLIENT = "client";

    public static Revocation token(String jti, String clientId, long expiresAt, String reason) {
        return new Revocation(TOKEN, jti, clientId, null, expiresAt, reason);
    }

    public static Revocation client(String clientId, long issuedBefore, long expiresAt, String reason) {
        return new Revocation(CLIENT, null, clientId, issuedBefore, expiresAt, reason);
    }

    /** The record key: one per token, one per client (compaction keeps a client's latest cut-off). */
    @JsonIgnore
    public String key() {
        return TOKEN.equals(type) ? "token:" + jti : "client:" + clientId;
    }

    /**
     * Whether the record holds what its type needs, as auth-service writes it: every record its {@code expires_at}
     * (without it the entry could not be kept for as long as it matters, nor dropped after).
     */
    @JsonIgnore
    public boolean wellFormed() {
        if (expiresAt == null) {
            return false;
        }
        if (TOKEN.equals(type)) {
            return jti != null && !jti.isEmpty();
        }
        return CLIENT.equals(type) && clientId != null && !clientId.isEmpty() && issuedBefore != null;
    }
}
