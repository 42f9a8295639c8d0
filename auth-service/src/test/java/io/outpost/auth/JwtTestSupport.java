package io.outpost.auth;

import static io.restassured.RestAssured.given;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;

/**
 * A standard JOSE verifier (Nimbus, independent of the jose4j that signs) set up the way a resource server
 * would be: keys from the published JWK Set, {@code typ: at+jwt}, issuer, audience, expiry and RFC 9068 claims.
 */
public final class JwtTestSupport {

    public static final String ISSUER = "http://localhost:8080";
    public static final String AUDIENCE = "outpost";

    private JwtTestSupport() {
    }

    /** The JWK Set as published right now. */
    public static JWKSet publishedKeys() throws Exception {
        return JWKSet.parse(given().get("/users/v1/publickeys").then().statusCode(200).extract().asString());
    }

    /** Verifies like a resource server; throws on any refusal. */
    public static JWTClaimsSet verify(String token, JWKSet keys) throws Exception {
        DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
        processor.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(new JOSEObjectType("at+jwt")));
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(Set.of(JWSAlgorithm.ES256, JWSAlgorithm.RS256),
                new ImmutableJWKSet<>(keys)));
        processor.setJWTClaimsSetVerifier(new DefaultJWTClaimsVerifier<>(AUDIENCE,
                new JWTClaimsSet.Builder().issuer(ISSUER).build(),
                Set.of("sub", "exp", "iat", "jti", "client_id", "permissions")));
        return processor.process(token, null);
    }

    /** Signs {@code claims} as an access token with an EC key under {@code kid}. */
    public static String signEs256(ECKey key, String kid, JWTClaimsSet claims) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(kid)
                .type(new JOSEObjectType("at+jwt")).build(), claims);
        jwt.sign(new ECDSASigner(key));
        return jwt.serialize();
    }

    /** Claims a valid token of {@code clientId} would carry, expiring at {@code exp}. */
    public static JWTClaimsSet claims(String clientId, Date exp) {
        return new JWTClaimsSet.Builder().issuer(ISSUER).audience(AUDIENCE).subject(clientId)
                .expirationTime(exp).issueTime(new Date(exp.getTime() - 3_600_000)).jwtID("test-" + System.nanoTime())
                .claim("client_id", clientId).claim("permissions", List.of("sandbox:config:view")).build();
    }

    /** The service's own development signing key of the test run (target/test-auth-keys). */
    public static ECKey serviceDevKey() throws Exception {
        try (Stream<Path> files = Files.list(Path.of("target/test-auth-keys"))) {
            Path file = files.filter(f -> f.getFileName().toString().endsWith(".jwk")).findFirst().orElseThrow();
            return ECKey.parse(Files.readString(file));
        }
    }

    /** An EC private key from a PKCS#8 PEM test key, with its public half from the published set. */
    public static ECKey testKey(String pemFile, ECKey published) throws Exception {
        String pem = Files.readString(Path.of("src/test/resources/test-keys", pemFile));
        String body = pem.substring(pem.indexOf("-----BEGIN PRIVATE KEY-----") + 27, pem.indexOf("-----END PRIVATE KEY-----"));
        ECPrivateKey key = (ECPrivateKey) KeyFactory.getInstance("EC")
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(body)));
        return new ECKey.Builder(published).privateKey(key).build();
    }
}
