package io.outpost.auth.security;

import java.security.PrivateKey;
import java.security.PublicKey;

import org.jose4j.jwk.PublicJsonWebKey;

/**
 * One key of the key set: its id, algorithm ({@code ES256} or {@code RS256}), the private key that signs (in the
 * signing provider's own form) and the public half as published.
 */
public record SigningKey(String kid, String algorithm, PrivateKey privateKey, PublicKey publicKey,
        PublicJsonWebKey publicJwk) {

    public static final String ES256 = "ES256";
    public static final String RS256 = "RS256";
}
