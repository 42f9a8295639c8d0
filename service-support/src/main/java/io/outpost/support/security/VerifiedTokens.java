package io.outpost.support.security;

import java.security.PublicKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.json.JsonArray;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jose4j.jwt.consumer.ErrorCodes;
import org.jose4j.jwt.consumer.InvalidJwtException;

import io.outpost.model.Uuids;
import io.outpost.model.error.AuthErrorCode;
import io.smallrye.jwt.auth.principal.ParseException;

/**
 * Between SmallRye JWT and DESIGN §3: reads an accepted token's claims into a {@link VerifiedToken}, strictly
 * ({@code permissions} a JSON array of strings, {@code player_uuid} and {@code client_id} strings), and names the
 * code of a refusal from the library's failure. The library wraps jose4j's {@link InvalidJwtException}, whose
 * error codes say what failed; failures of its own checks (iat after exp, a missing required claim) are claims.
 */
final class VerifiedTokens {

    private VerifiedTokens() {
    }

    static VerifiedToken read(JsonWebToken token, String kid, PublicKey key) {
        Object held = token.getClaim("permissions");
        List<String> permissions = new ArrayList<>();
        if (held != null) {
            // strictly a JSON array of strings: a lone string is not silently read as a list of one
            if (!(held instanceof JsonArray array) || !array.stream().allMatch(JsonString.class::isInstance)) {
                throw invalidClaim("The token's permissions are not a list of strings");
            }
            array.forEach(value -> permissions.add(((JsonString) value).getString()));
        }
        String player = string(token.getClaim("player_uuid"), "player_uuid");
        String clientId = string(token.getClaim("client_id"), "client_id");
        String jti = string(token.getClaim("jti"), "jti");
        List<UUID> sandboxes = sandboxes(token.getClaim("sandbox_ids"));
        String subject = SHARED.shared(token.getSubject());
        return new VerifiedToken(subject, clientId == null ? subject : SHARED.shared(clientId),
                SHARED.shared(List.copyOf(permissions)), player, Instant.ofEpochSecond(token.getIssuedAtTime()),
                Instant.ofEpochSecond(token.getExpirationTime()), jti, SHARED.shared(kid),
                sandboxes == null ? null : SHARED.shared(sandboxes), key);
    }

    /**
     * The {@code sandbox_ids} claim, strictly a JSON array of uuid strings (null when absent or JSON null). An empty
     * array binds the token to no sandbox at all: a claim present never widens what a token reaches.
     */
    private static List<UUID> sandboxes(Object held) {
        if (held == null || held == JsonValue.NULL) {
            return null;
        }
        if (!(held instanceof JsonArray array)) {
            throw invalidClaim("The token's sandbox_ids are not a list of uuids");
        }
        List<UUID> sandboxes = new ArrayList<>(array.size());
        for (JsonValue value : array) {
            UUID sandbox = value instanceof JsonString text ? Uuids.parse(text.getString()) : null;
            if (sandbox == null) {
                throw invalidClaim("The token's sandbox_ids are not a list of uuids");
            }
            sandboxes.add(sandbox);
        }
        return List.copyOf(sandboxes);
    }

    /**
     * One instance of each value that many tokens repeat (client ids, permission lists, key ids), so a token
     * remembered per held poll does not carry its own copies. Only values of tokens already verified get here, and
     * at most {@link Shared#MAX} of them: past that, values are kept as they are.
     */
    private static final Shared SHARED = new Shared();

    static final class Shared {
        static final int MAX = 10_000;
        private final java.util.concurrent.ConcurrentHashMap<Object, Object> values = new java.util.concurrent.ConcurrentHashMap<>();

        @SuppressWarnings("unchecked")
        <T> T shared(T value) {
            if (value == null) {
                return null;
            }
            Object known = values.get(value);
            if (known != null) {
                return (T) known;
            }
            if (values.size() >= MAX) {
                return value;
            }
            Object raced = values.putIfAbsent(value, value);
            return raced == null ? value : (T) raced;
        }
    }

    /** The DESIGN §3 refusal for a token the library refused. */
    static AuthRefusedException refusal(ParseException e) {
        InvalidJwtException cause = null;
        for (Throwable t = e; t != null && cause == null; t = t.getCause()) {
            if (t instanceof InvalidJwtException invalid) {
                cause = invalid;
            }
        }
        if (cause == null) {
            return invalidClaim("The access token's times are not acceptable");
        }
        if (cause.hasExpired()) {
            return new AuthRefusedException(AuthErrorCode.TOKEN_EXPIRED, "The access token has expired");
        }
        if (cause.hasErrorCode(ErrorCodes.SIGNATURE_INVALID) || cause.hasErrorCode(ErrorCodes.SIGNATURE_MISSING)) {
            return new AuthRefusedException(AuthErrorCode.TOKEN_SIG_INVALID, "The access token's signature is invalid");
        }
        if (cause.hasErrorCode(ErrorCodes.JSON_INVALID)
                || cause.hasErrorCode(ErrorCodes.MISCELLANEOUS) && cause.getJwtContext() == null) {
            return new AuthRefusedException(AuthErrorCode.TOKEN_FORMAT, "The access token cannot be read");
        }
        return invalidClaim("The access token's claims are not acceptable (issuer, audience, subject or times)");
    }

    private static String string(Object claim, String name) {
        if (claim == null || claim instanceof String) {
            return (String) claim;
        }
        if (claim instanceof JsonString json) {
            return json.getString();
        }
        if (claim == JsonValue.NULL) {
            return null;
        }
        throw invalidClaim("The token's " + name + " is not a string");
    }

    private static AuthRefusedException invalidClaim(String description) {
        return new AuthRefusedException(AuthErrorCode.TOKEN_INVALID_CLAIM, description);
    }
}
