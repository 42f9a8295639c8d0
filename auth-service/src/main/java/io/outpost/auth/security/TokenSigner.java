package io.outpost.auth.security;

import java.util.List;
import java.util.UUID;

import jakarta.inject.Singleton;

import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.jose4j.jwx.HeaderParameterNames;
import org.jose4j.lang.JoseException;

import io.outpost.auth.config.AuthConfig;

/** Signs access tokens in the RFC 9068 profile (DESIGN §2) with the active key of the {@link KeyRing}. */
@Singleton
public class TokenSigner {

    /** RFC 9068 §2.1: the {@code typ} of a JWT access token. */
    public static final String ACCESS_TOKEN_TYPE = "at+jwt";

    private final KeyRing keys;
    private final String issuer;
    private final String audience;
    private final long lifetimeSeconds;

    public TokenSigner(KeyRing keys, AuthConfig config) {
        this.keys = keys;
        this.issuer = config.issuer();
        this.audience = config.audience();
        this.lifetimeSeconds = config.tokenLifetime().toSeconds();
    }

    public long lifetimeSeconds() {
        return lifetimeSeconds;
    }

    /** A signed access token for a client; {@code player} may be null. */
    public String sign(String clientId, List<String> permissions, UUID player) {
        long now = System.currentTimeMillis() / 1000;
        JwtClaims claims = new JwtClaims();
        claims.setIssuer(issuer);
        claims.setSubject(clientId);
        claims.setAudience(audience);
        claims.setExpirationTime(NumericDate.fromSeconds(now + lifetimeSeconds));
        claims.setIssuedAt(NumericDate.fromSeconds(now));
        claims.setJwtId(UUID.randomUUID().toString());
        claims.setClaim("client_id", clientId);
        claims.setStringListClaim("permissions", permissions);
        if (player != null) {
            claims.setClaim("player_uuid", player.toString());
        }
        SigningKey key = keys.active();
        JsonWebSignature jws = new JsonWebSignature();
        jws.setAlgorithmHeaderValue(key.algorithm());
        jws.setKeyIdHeaderValue(key.kid());
        jws.setHeader(HeaderParameterNames.TYPE, ACCESS_TOKEN_TYPE);
        jws.setPayload(claims.toJson());
        jws.setKey(key.privateKey());
        jws.setDoKeyValidation(false); // checked once, when the key was loaded
        jws.setProviderContext(keys.providerContext());
        try {
            return jws.getCompactSerialization();
        } catch (JoseException e) {
            throw new IllegalStateException("could not sign an access token with key " + key.kid(), e);
        }
    }
}
