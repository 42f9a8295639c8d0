package io.outpost.support.security;

import java.security.Key;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;

import org.jose4j.jwa.AlgorithmConstraints;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.MalformedClaimException;
import org.jose4j.jwt.consumer.ErrorCodes;
import org.jose4j.jwt.consumer.InvalidJwtException;
import org.jose4j.jwt.consumer.JwtConsumer;
import org.jose4j.jwt.consumer.JwtConsumerBuilder;
import org.jose4j.jwx.JsonWebStructure;
import org.jose4j.lang.JoseException;

import io.outpost.model.error.AuthErrorCode;
import io.smallrye.mutiny.Uni;

/**
 * Verifies an access token offline, against the published keys: RFC 9068 shape ({@code typ: at+jwt}, a
 * {@code kid}), ES256 or RS256 signature, {@code exp}/{@code iat}, issuer and audience. Each refusal names
 * its DESIGN §3 code. A token once verified is remembered until it expires (bounded), since long-poll
 * clients present the same token again and again.
 */
@ApplicationScoped
public class TokenVerifier {

    static final Set<String> ALGORITHMS = Set.of(AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256,
            AlgorithmIdentifiers.RSA_USING_SHA256);
    private static final Pattern COMPACT_JWS = Pattern.compile("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*");

    private final KeySource keys;
    private final SecurityConfig config;
    private final Map<String, VerifiedToken> verified = new ConcurrentHashMap<>();

    public TokenVerifier(KeySource keys, SecurityConfig config) {
        this.keys = keys;
        this.config = config;
    }

    /** The token's content, or a failure with {@link AuthRefusedException}. */
    public Uni<VerifiedToken> verify(String compact) {
        VerifiedToken known = verified.get(compact);
        if (known != null) {
            if (known.expiresAt().plus(config.clockSkew()).isAfter(Instant.now())) {
                return Uni.createFrom().item(known);
            }
            verified.remove(compact);
        }
        if (!COMPACT_JWS.matcher(compact).matches()) {
            return refuse(AuthErrorCode.NOT_JWT, "The access token is not a JWT");
        }
        JsonWebSignature jws;
        try {
            jws = (JsonWebSignature) JsonWebStructure.fromCompactSerialization(compact);
            jws.getHeaders(); // parsed eagerly: a header that is not JSON fails here
        } catch (JoseException | ClassCastException e) {
            return refuse(AuthErrorCode.TOKEN_FORMAT, "The access token cannot be read");
        }
        String alg = jws.getAlgorithmHeaderValue();
        if (alg == null || !ALGORITHMS.contains(alg)) {
            return refuse(AuthErrorCode.TOKEN_SIG_INVALID, "The access token is not signed with an accepted algorithm");
        }
        String kid = jws.getKeyIdHeaderValue();
        if (kid == null || kid.isEmpty()) {
            return refuse(AuthErrorCode.INVALID_KEY_ID, "The access token names no signing key");
        }
        return keys.key(kid).map(key -> check(compact, jws, alg, key));
    }

    private VerifiedToken check(String compact, JsonWebSignature jws, String alg, Optional<Key> key) {
        if (key.isEmpty()) {
            throw new AuthRefusedException(AuthErrorCode.INVALID_KEY_ID, "The access token's signing key is unknown");
        }
        JwtClaims claims;
        try {
            claims = consumer(alg, key.get()).processToClaims(compact);
        } catch (InvalidJwtException e) {
            throw refusal(e);
        }
        String typ = jws.getHeader("typ");
        if (typ == null || !(typ.equalsIgnoreCase("at+jwt") || typ.equalsIgnoreCase("application/at+jwt"))) {
            throw new AuthRefusedException(AuthErrorCode.TOKEN_INVALID_TYPE, "The token is not an access token");
        }
        VerifiedToken token = read(claims);
        remember(compact, token);
        return token;
    }

    private JwtConsumer consumer(String alg, Key key) {
        return new JwtConsumerBuilder()
                .setVerificationKey(key)
                .setJwsAlgorithmConstraints(AlgorithmConstraints.ConstraintType.PERMIT, alg)
                .setRequireExpirationTime()
                .setRequireIssuedAt()
                .setRequireSubject()
                .setAllowedClockSkewInSeconds((int) config.clockSkew().toSeconds())
                .setExpectedIssuer(true, config.issuer())
                .setExpectedAudience(true, config.audience())
                .build();
    }

    private static VerifiedToken read(JwtClaims claims) {
        try {
            List<String> permissions = new ArrayList<>();
            Object held = claims.getClaimValue("permissions");
            if (held != null) {
                // strictly a JSON array of strings: a lone string is not silently read as a list of one
                if (!(held instanceof List<?> list) || !list.stream().allMatch(String.class::isInstance)) {
                    throw new AuthRefusedException(AuthErrorCode.TOKEN_INVALID_CLAIM,
                            "The token's permissions are not a list of strings");
                }
                list.forEach(p -> permissions.add((String) p));
            }
            Object player = claims.getClaimValue("player_uuid");
            if (player != null && !(player instanceof String)) {
                throw new AuthRefusedException(AuthErrorCode.TOKEN_INVALID_CLAIM, "The token's player_uuid is not a string");
            }
            String clientId = claims.getClaimValueAsString("client_id");
            return new VerifiedToken(claims.getSubject(), clientId == null ? claims.getSubject() : clientId,
                    permissions, (String) player, Instant.ofEpochSecond(claims.getExpirationTime().getValue()));
        } catch (MalformedClaimException e) {
            throw new AuthRefusedException(AuthErrorCode.TOKEN_INVALID_CLAIM, "The token has a malformed claim");
        }
    }

    private static AuthRefusedException refusal(InvalidJwtException e) {
        if (e.hasExpired()) {
            return new AuthRefusedException(AuthErrorCode.TOKEN_EXPIRED, "The access token has expired");
        }
        if (e.hasErrorCode(ErrorCodes.SIGNATURE_INVALID) || e.hasErrorCode(ErrorCodes.SIGNATURE_MISSING)) {
            return new AuthRefusedException(AuthErrorCode.TOKEN_SIG_INVALID, "The access token's signature is invalid");
        }
        if (e.hasErrorCode(ErrorCodes.JSON_INVALID) || e.hasErrorCode(ErrorCodes.MISCELLANEOUS)
                && e.getJwtContext() == null) {
            return new AuthRefusedException(AuthErrorCode.TOKEN_FORMAT, "The access token cannot be read");
        }
        return new AuthRefusedException(AuthErrorCode.TOKEN_INVALID_CLAIM,
                "The access token's claims are not acceptable (issuer, audience, subject or times)");
    }

    private void remember(String compact, VerifiedToken token) {
        if (verified.size() >= config.verifiedTokenCacheSize()) {
            Instant now = Instant.now();
            verified.values().removeIf(t -> t.expiresAt().isBefore(now));
            if (verified.size() >= config.verifiedTokenCacheSize()) {
                verified.clear(); // crude but bounded; the next requests are verified again
            }
        }
        verified.put(compact, token);
    }

    private static <T> Uni<T> refuse(AuthErrorCode code, String description) {
        return Uni.createFrom().failure(new AuthRefusedException(code, description));
    }
}
