package io.outpost.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.jose4j.jwk.EllipticCurveJsonWebKey;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.PublicJsonWebKey;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.jose4j.lang.JoseException;

/**
 * Access tokens for tests, shaped like auth-service's (RFC 9068: {@code typ: at+jwt}, {@code kid}), signed by
 * throw-away test keys generated in this JVM and published as a JWK Set file. {@link OutpostTestResource}
 * points {@code outpost.security.jwks-url} at that file, so services under test trust these keys — and only
 * these. Nothing here is a real key; nothing is written to the repository.
 */
public final class TestTokens {

    public static final String ISSUER = "http://localhost:8080";
    public static final String AUDIENCE = "outpost";
    public static final String ES256_KID = "test-es256-1";
    public static final String RS256_KID = "test-rs256-1";

    private static TestTokens shared;

    private final Path jwksFile;
    private final Map<String, PublicJsonWebKey> published = new LinkedHashMap<>();
    private final PublicJsonWebKey untrusted;

    private TestTokens(Path jwksFile) {
        this.jwksFile = jwksFile;
        published.put(ES256_KID, ecKey(ES256_KID));
        published.put(RS256_KID, rsaKey(RS256_KID));
        untrusted = ecKey(ES256_KID); // same kid, a key nobody published
        writeJwks();
    }

    public static synchronized TestTokens shared() {
        if (shared == null) {
            try {
                Path dir = Files.createTempDirectory("outpost-test-keys-");
                dir.toFile().deleteOnExit();
                shared = new TestTokens(dir.resolve("jwks.json"));
                shared.jwksFile.toFile().deleteOnExit();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return shared;
    }

    /** A {@code file:} URL of the published JWK Set. */
    public String jwksUrl() {
        return jwksFile.toUri().toString();
    }

    /** Publishes a new ES256 key (as in a rotation) and returns its key id. */
    public synchronized String publishNewKey() {
        String kid = "test-es256-" + UUID.randomUUID();
        published.put(kid, ecKey(kid));
        writeJwks();
        return kid;
    }

    /**
     * Publishes another key under {@code kid} in place of the one it named (a key replaced without a new id):
     * tokens signed before no longer verify under it.
     */
    public synchronized void replaceKey(String kid) {
        published.put(kid, ecKey(kid));
        writeJwks();
    }

    /** Takes a key out of the published set (as when auth-service retires it). */
    public synchronized void unpublish(String kid) {
        published.remove(kid);
        writeJwks();
    }

    /**
     * One part of a compact token spelled otherwise than in canonical base64url (RFC 4648 §3.5): with its last
     * character's unused bits set where it has some — it decodes to the same bytes —, else one character longer
     * (a length no bytes encode to).
     */
    public static String nonCanonical(String part) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        if (part.length() % 4 == 0) {
            return part + "A";
        }
        int last = alphabet.indexOf(part.charAt(part.length() - 1));
        return part.substring(0, part.length() - 1) + alphabet.charAt(last | 1);
    }

    /** A valid token with no permissions and no player; adjust with the builder's methods, then sign. */
    public Token token() {
        return new Token();
    }

    /** Builds one token; every default is what a valid auth-service token carries. */
    public final class Token {
        private final JwtClaims claims = new JwtClaims();
        private String kid = ES256_KID;
        private String alg = AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256;
        private String type = "at+jwt";
        private boolean untrustedKey;

        private Token() {
            claims.setIssuer(ISSUER);
            claims.setAudience(AUDIENCE);
            claims.setSubject("test-client");
            claims.setClaim("client_id", "test-client");
            claims.setIssuedAtToNow();
            claims.setExpirationTimeMinutesInTheFuture(60);
            claims.setGeneratedJwtId();
            claims.setStringListClaim("permissions", new ArrayList<>());
        }

        public Token permissions(String... permissions) {
            claims.setStringListClaim("permissions", List.of(permissions));
            return this;
        }

        public Token player(UUID player) {
            claims.setClaim("player_uuid", player.toString());
            return this;
        }

        public Token client(String clientId) {
            claims.setSubject(clientId);
            claims.setClaim("client_id", clientId);
            return this;
        }

        public Token issuedAt(Instant when) {
            claims.setIssuedAt(NumericDate.fromSeconds(when.getEpochSecond()));
            return this;
        }

        public Token jwtId(String jti) {
            claims.setJwtId(jti);
            return this;
        }

        /** The token's {@code jti}. */
        public String jwtId() {
            try {
                return claims.getJwtId();
            } catch (org.jose4j.jwt.MalformedClaimException e) {
                throw new IllegalStateException(e);
            }
        }

        public Token expiresAt(Instant when) {
            claims.setExpirationTime(NumericDate.fromSeconds(when.getEpochSecond()));
            return this;
        }

        public Token issuer(String issuer) {
            claims.setIssuer(issuer);
            return this;
        }

        public Token audience(String audience) {
            claims.setAudience(audience);
            return this;
        }

        /** Sets any claim, or removes it when {@code value} is null. */
        public Token claim(String name, Object value) {
            if (value == null) {
                claims.unsetClaim(name);
            } else {
                claims.setClaim(name, value);
            }
            return this;
        }

        /** The {@code typ} header; null leaves it out. */
        public Token type(String type) {
            this.type = type;
            return this;
        }

        /** The {@code kid} header; null leaves it out. */
        public Token keyId(String kid) {
            this.kid = kid;
            return this;
        }

        public Token rs256() {
            this.kid = RS256_KID;
            this.alg = AlgorithmIdentifiers.RSA_USING_SHA256;
            return this;
        }

        /** Signed by a key that was never published, under a published key id. */
        public Token untrustedKey() {
            this.untrustedKey = true;
            return this;
        }

        public String sign() {
            JsonWebSignature jws = new JsonWebSignature();
            jws.setPayload(claims.toJson());
            jws.setAlgorithmHeaderValue(alg);
            if (kid != null) {
                jws.setKeyIdHeaderValue(kid);
            }
            if (type != null) {
                jws.setHeader("typ", type);
            }
            PublicJsonWebKey key = untrustedKey ? untrusted : published.getOrDefault(kid, published.get(ES256_KID));
            jws.setKey(signingKey(key));
            try {
                return jws.getCompactSerialization();
            } catch (JoseException e) {
                throw new IllegalStateException(e);
            }
        }

        /** The same claims with {@code alg: none} and no signature. */
        public String unsigned() {
            JsonWebSignature jws = new JsonWebSignature();
            jws.setPayload(claims.toJson());
            jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.NONE);
            jws.setKeyIdHeaderValue(kid);
            jws.setHeader("typ", type);
            jws.setAlgorithmConstraints(org.jose4j.jwa.AlgorithmConstraints.NO_CONSTRAINTS);
            try {
                return jws.getCompactSerialization();
            } catch (JoseException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static PrivateKey signingKey(PublicJsonWebKey key) {
        return key == null ? null : key.getPrivateKey();
    }

    private synchronized void writeJwks() {
        List<JsonWebKey> keys = new ArrayList<>(published.values());
        String json = new JsonWebKeySet(keys).toJson(JsonWebKey.OutputControlLevel.PUBLIC_ONLY);
        try {
            Path tmp = jwksFile.resolveSibling("jwks.json.tmp");
            Files.writeString(tmp, json, StandardCharsets.UTF_8);
            Files.move(tmp, jwksFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static PublicJsonWebKey ecKey(String kid) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            KeyPair pair = generator.generateKeyPair();
            EllipticCurveJsonWebKey jwk = new EllipticCurveJsonWebKey((java.security.interfaces.ECPublicKey) pair.getPublic());
            jwk.setPrivateKey(pair.getPrivate());
            jwk.setKeyId(kid);
            jwk.setAlgorithm(AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256);
            jwk.setUse("sig");
            return jwk;
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static PublicJsonWebKey rsaKey(String kid) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            KeyPair pair = generator.generateKeyPair();
            RsaJsonWebKey jwk = new RsaJsonWebKey((java.security.interfaces.RSAPublicKey) pair.getPublic());
            jwk.setPrivateKey(pair.getPrivate());
            jwk.setKeyId(kid);
            jwk.setAlgorithm(AlgorithmIdentifiers.RSA_USING_SHA256);
            jwk.setUse("sig");
            return jwk;
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
