package io.outpost.support.security;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.logging.Logger;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwx.JsonWebStructure;
import org.jose4j.lang.JoseException;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import io.outpost.model.error.AuthErrorCode;
import io.outpost.support.security.revocation.RevocationFeed;
import io.outpost.support.security.revocation.RevocationList;
import io.outpost.support.security.revocation.RevocationsUnreadException;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import io.smallrye.mutiny.Uni;

/**
 * Verifies an access token offline, against the published keys (DESIGN §3). Outpost reads the header (compact
 * form, each part canonical base64url: {@link CompactJws}; {@code alg} ES256 or RS256, a {@code kid} of the key
 * set, {@code typ: at+jwt} of RFC 9068) and resolves the key ({@link KeySource}); SmallRye JWT's
 * {@link JWTParser} checks the signature, {@code exp}/{@code iat} with the clock skew, {@code iss}, {@code aud}
 * and the required claims ({@code mp.jwt.*}); {@link VerifiedTokens} reads the claims and maps the library's
 * failures to DESIGN §3 codes. Then, on every request, revocation.
 *
 * <p>A verified token is remembered until it expires (bounded), since long-poll clients present the same token
 * again and again: a remembered token still has its key checked against the current key set and its revocation
 * checked each time, so removing a key or revoking a token applies to it as to any other.
 */
@ApplicationScoped
public class TokenVerifier {

    static final Set<String> ALGORITHMS = Set.of(AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256,
            AlgorithmIdentifiers.RSA_USING_SHA256);

    private static final Logger LOG = Logger.getLogger(TokenVerifier.class);

    private final KeySource keys;
    private final JWTParser parser;
    private final SecurityConfig config;
    private final RevocationList revocations;
    private final RevocationFeed feed;
    private final Clock clock;
    private final Duration clockSkew;
    private final Cache<TokenDigest, VerifiedToken> verified;

    public TokenVerifier(KeySource keys, JWTParser parser, JWTAuthContextInfo library, RevocationList revocations,
            RevocationFeed feed, SecurityConfig config, Clock clock) {
        this.feed = feed;
        this.keys = keys;
        this.parser = parser;
        this.config = config;
        this.revocations = revocations;
        this.clock = clock;
        this.clockSkew = Duration.ofSeconds(library.getClockSkew());
        this.verified = config.verifiedTokenCacheSize() <= 0 ? null
                : Caffeine.newBuilder().maximumSize(config.verifiedTokenCacheSize())
                        .expireAfter(new ExpireAt<TokenDigest, VerifiedToken>(clock,
                                token -> token.expiresAt().plus(clockSkew))).build();
    }

    /**
     * At start-up, on the main thread, what the first verified request would otherwise pay for on its event loop:
     * the key source prepares ({@link JwksKeySource} builds its HTTP client) and a throw-away ES256 token, signed here
     * by a key made here and never published, goes through the checks — jose4j's and SmallRye JWT's classes, the
     * JSON provider, the signature provider (Conscrypt) and its first signature object: ≈ 200 ms the first time on
     * this project's machines, ≈ 1 ms after. Nothing is remembered, and a failure here only leaves the cost to the
     * first request.
     */
    void warmUp(@Observes StartupEvent event) {
        long start = System.nanoTime();
        keys.prepare();
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            KeyPair pair = generator.generateKeyPair();
            JwtClaims claims = new JwtClaims();
            claims.setIssuer(config.issuer());
            claims.setAudience(config.audience());
            claims.setSubject("outpost-warm-up");
            claims.setIssuedAtToNow();
            claims.setExpirationTimeMinutesInTheFuture(1);
            claims.setStringListClaim("permissions", List.of());
            JsonWebSignature jws = new JsonWebSignature();
            jws.setPayload(claims.toJson());
            jws.setKey(pair.getPrivate());
            jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256);
            jws.setKeyIdHeaderValue("outpost-warm-up");
            jws.setHeader("typ", "at+jwt");
            String compact = jws.getCompactSerialization();
            CompactJws.fault(compact);
            TokenDigest.of(compact);
            JsonWebStructure.fromCompactSerialization(compact).getHeaders();
            parser.verify(compact, pair.getPublic()).getClaim("permissions");
            LOG.debugf("token verification warmed up in %d ms", (System.nanoTime() - start) / 1_000_000);
        } catch (Exception e) {
            LOG.infof("token verification could not be warmed up at start-up: %s", e.toString());
        }
    }

    /**
     * The token's content, or a failure with {@link AuthRefusedException}; with {@link RevocationsUnreadException}
     * (503) while this replica has not read the revocation topic since it started: a token it cannot check against
     * revocations is not accepted.
     */
    public Uni<VerifiedToken> verify(String compact) {
        if (!feed.caughtUp()) {
            return Uni.createFrom().failure(new RevocationsUnreadException(feed.notCaughtUpReason()));
        }
        TokenDigest key = verified == null ? null : TokenDigest.of(compact);
        VerifiedToken known = key == null ? null : verified.getIfPresent(key);
        if (known != null) {
            if (keys.publishes(known.kid(), known.signedBy())
                    && clock.instant().isBefore(known.expiresAt().plus(clockSkew))) {
                return Uni.createFrom().item(() -> unlessRevoked(known));
            }
            // its key left the set or another key took its id, or it expired: verified afresh, and refused
            verified.invalidate(key);
        }
        AuthErrorCode malformed = CompactJws.fault(compact);
        if (malformed == AuthErrorCode.NOT_JWT) {
            return refuse(AuthErrorCode.NOT_JWT, "The access token is not a JWT");
        }
        if (malformed != null) {
            return refuse(AuthErrorCode.TOKEN_FORMAT, "The access token is not in canonical base64url");
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
        String typ = jws.getHeader("typ");
        return keys.key(kid).map(found -> unlessRevoked(check(compact, key, alg, kid, typ, found)));
    }

    private VerifiedToken check(String compact, TokenDigest cacheKey, String alg, String kid, String typ,
            Optional<PublicKey> key) {
        if (key.isEmpty()) {
            throw new AuthRefusedException(AuthErrorCode.INVALID_KEY_ID, "The access token's signing key is unknown");
        }
        if (!fits(alg, key.get())) {
            throw new AuthRefusedException(AuthErrorCode.TOKEN_SIG_INVALID,
                    "The access token's algorithm does not match its signing key");
        }
        JsonWebToken token;
        try {
            token = parser.verify(compact, key.get());
        } catch (ParseException e) {
            throw VerifiedTokens.refusal(e);
        } catch (RuntimeException e) { // the library's claim handling on odd values (e.g. "groups": 5)
            throw new AuthRefusedException(AuthErrorCode.TOKEN_INVALID_CLAIM, "The token has a malformed claim");
        }
        // RFC 9068 §2.1; SmallRye JWT does not look at typ, so an ID token or any other JWT would pass it
        if (typ == null || !(typ.equalsIgnoreCase("at+jwt") || typ.equalsIgnoreCase("application/at+jwt"))) {
            throw new AuthRefusedException(AuthErrorCode.TOKEN_INVALID_TYPE, "The token is not an access token");
        }
        VerifiedToken read = VerifiedTokens.read(token, kid, key.get());
        if (verified != null) {
            verified.put(cacheKey, read);
        }
        return read;
    }

    /**
     * Why a token verified earlier may no longer be used to hold something open, or null while it may: it was
     * revoked since ({@code auth_token_unknown}), the key that verified it left the key set
     * ({@code auth_invalid_key_id}, as a fresh verification answers it) or another key took its id
     * ({@code auth_token_sig_invalid}, likewise), or its {@code exp} has passed ({@code auth_token_expired}; the
     * clock skew admits a request, it does not lengthen what the token holds). A held long poll asks before it
     * answers, whenever a revocation arrives and whenever the key set changes ({@link #onKeysChanged}).
     */
    public AuthRefusedException refusalOf(VerifiedToken token) {
        if (revocations.revoked(token)) {
            return new AuthRefusedException(AuthErrorCode.TOKEN_UNKNOWN, "The access token has been revoked");
        }
        if (token.signedBy() != null && !keys.publishes(token.kid(), token.signedBy())) {
            return keys.published(token.kid())
                    ? new AuthRefusedException(AuthErrorCode.TOKEN_SIG_INVALID,
                            "The access token's signing key was replaced")
                    : new AuthRefusedException(AuthErrorCode.INVALID_KEY_ID, "The access token's signing key is unknown");
        }
        if (!clock.instant().isBefore(token.expiresAt())) {
            return new AuthRefusedException(AuthErrorCode.TOKEN_EXPIRED, "The access token has expired");
        }
        return null;
    }

    /**
     * {@code listener} runs (on any thread) after the key set changed; a holder of verified tokens then asks
     * {@link #refusalOf} of each again. The key set is fetched again only when due ({@link #refreshKeysIfDue}).
     */
    public void onKeysChanged(Runnable listener) {
        keys.onChange(listener);
    }

    /** Has the key set fetched again when {@code jwks-refresh} says it is due; returns at once. */
    public void refreshKeysIfDue() {
        keys.refreshIfDue();
    }

    private VerifiedToken unlessRevoked(VerifiedToken token) {
        if (revocations.revoked(token)) {
            throw new AuthRefusedException(AuthErrorCode.TOKEN_UNKNOWN, "The access token has been revoked");
        }
        return token;
    }

    private static boolean fits(String alg, PublicKey key) {
        return alg.startsWith("ES") ? key instanceof ECPublicKey : key instanceof RSAPublicKey;
    }

    private static <T> Uni<T> refuse(AuthErrorCode code, String description) {
        return Uni.createFrom().failure(new AuthRefusedException(code, description));
    }
}
