package io.outpost.auth.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.security.Signature;
import java.util.Base64;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.inject.Singleton;

import org.jose4j.jws.EcdsaUsingShaAlgorithm;

import com.fasterxml.jackson.core.io.JsonStringEncoder;

import io.outpost.auth.config.AuthConfig;

/**
 * Signs access tokens in the RFC 9068 profile (DESIGN §2) with the key the {@link KeyRing} names now: a JWS in
 * compact form, header {@code {"alg","kid","typ":"at+jwt"}}, claims {@code iss, sub, aud, exp, iat, jti, client_id,
 * permissions[, player_uuid]}.
 *
 * <p>This is the hot path of the token endpoint, so the compact form is assembled here with the JDK's base64 and a
 * precomputed header (jose4j's general-purpose JSON and base64 cost more than the signature itself, measured); the
 * signature comes from the signing provider (Conscrypt when it loads) and jose4j turns its DER ECDSA value into the
 * JOSE r‖s form. Interop tests verify the result with an independent JOSE library.
 */
@Singleton
public class TokenSigner {

    /** RFC 9068 §2.1: the {@code typ} of a JWT access token. */
    public static final String ACCESS_TOKEN_TYPE = "at+jwt";

    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final JsonStringEncoder JSON = JsonStringEncoder.getInstance();

    private final KeyRing keys;
    private final String issuerAndAudience;
    private final long lifetimeSeconds;
    private final Map<String, String> headers = new ConcurrentHashMap<>();
    private final Map<String, ThreadLocal<Signature>> signatures = new ConcurrentHashMap<>();

    public TokenSigner(KeyRing keys, AuthConfig config) {
        this.keys = keys;
        this.lifetimeSeconds = config.tokenLifetime().toSeconds();
        this.issuerAndAudience = "{\"iss\":" + quoted(config.issuer()) + ",\"aud\":" + quoted(config.audience());
    }

    public long lifetimeSeconds() {
        return lifetimeSeconds;
    }

    /**
     * A signed access token for a client; {@code player} may be null, and {@code sandboxIds} (canonical uuids,
     * carried as the claim {@code sandbox_ids}) null for a client bound to no sandbox. Its {@code iat} is never before
     * {@code notBefore} (the client's revocation cut-off, when one lies in the current second), so that a token
     * issued right after a revocation is not revoked with the older ones.
     */
    public String sign(String clientId, List<String> permissions, UUID player, List<String> sandboxIds,
            Instant notBefore) {
        SigningKey key = keys.active();
        long now = System.currentTimeMillis() / 1000;
        if (notBefore != null && notBefore.getEpochSecond() > now) {
            now = notBefore.getEpochSecond();
        }
        StringBuilder claims = new StringBuilder(256).append(issuerAndAudience)
                .append(",\"sub\":").append(quoted(clientId))
                .append(",\"exp\":").append(now + lifetimeSeconds)
                .append(",\"iat\":").append(now)
                .append(",\"jti\":\"").append(UUID.randomUUID()).append('"')
                .append(",\"client_id\":").append(quoted(clientId))
                .append(",\"permissions\":[");
        for (int i = 0; i < permissions.size(); i++) {
            claims.append(i == 0 ? "" : ",").append(quoted(permissions.get(i)));
        }
        claims.append(']');
        if (player != null) {
            claims.append(",\"player_uuid\":\"").append(player).append('"');
        }
        if (sandboxIds != null) {
            claims.append(",\"sandbox_ids\":[");
            for (int i = 0; i < sandboxIds.size(); i++) {
                claims.append(i == 0 ? "" : ",").append(quoted(sandboxIds.get(i)));
            }
            claims.append(']');
        }
        claims.append('}');
        String signingInput = header(key) + B64.encodeToString(claims.toString().getBytes(StandardCharsets.UTF_8));
        return signingInput + "." + B64.encodeToString(signature(key, signingInput.getBytes(StandardCharsets.US_ASCII)));
    }

    /** The encoded header of a key's tokens, with the separating dot (computed once per key). */
    private String header(SigningKey key) {
        return headers.computeIfAbsent(key.kid(), kid -> B64.encodeToString(("{\"alg\":\"" + key.algorithm()
                + "\",\"kid\":" + quoted(kid) + ",\"typ\":\"" + ACCESS_TOKEN_TYPE + "\"}")
                .getBytes(StandardCharsets.UTF_8)) + ".");
    }

    private byte[] signature(SigningKey key, byte[] input) {
        try {
            Signature signature = signatures.computeIfAbsent(key.algorithm(), this::perThread).get();
            signature.initSign(key.privateKey());
            signature.update(input);
            byte[] raw = signature.sign();
            // JWS (RFC 7518 §3.4) carries ES256 as r‖s, 32 bytes each, where JCA answers DER
            return key.algorithm().equals(SigningKey.ES256) ? EcdsaUsingShaAlgorithm.convertDerToConcatenated(raw, 64)
                    : raw;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("could not sign an access token with key " + key.kid(), e);
        }
    }

    private ThreadLocal<Signature> perThread(String algorithm) {
        String jca = algorithm.equals(SigningKey.ES256) ? "SHA256withECDSA" : "SHA256withRSA";
        Provider provider = keys.signatureProvider().orElse(null);
        return ThreadLocal.withInitial(() -> {
            try {
                return provider != null ? Signature.getInstance(jca, provider) : Signature.getInstance(jca);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(jca + " is unavailable", e);
            }
        });
    }

    private static String quoted(String text) {
        return "\"" + new String(JSON.quoteAsString(text)) + "\"";
    }
}
