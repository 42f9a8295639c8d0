package io.outpost.support.security;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.ws.rs.core.Cookie;
import jakarta.ws.rs.core.HttpHeaders;

import org.jboss.resteasy.reactive.common.util.CookieParser;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.SimpleResourceInfo;

import io.outpost.model.error.AuthErrorCode;
import io.outpost.support.http.PercentDecoding;
import io.quarkus.arc.ClientProxy;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.container.ContainerRequestContext;

/**
 * Enforces {@link RequirePermission} before a guarded resource method runs: reads the bearer token from
 * {@code Authorization: Bearer …} or, as game SDKs send it, a cookie {@code Authorization=bearer …};
 * verifies it; checks the permission and, where asked, the player; hands the token to {@link Caller}.
 */
public class BearerTokenFilter {

    private static final String BEARER = "bearer ";
    private static final Optional<RequirePermission> UNGUARDED = Optional.empty();

    private final TokenVerifier verifier;
    private final Caller caller;
    private final Map<Method, Optional<RequirePermission>> guards = new ConcurrentHashMap<>();

    public BearerTokenFilter(TokenVerifier verifier, Caller caller) {
        this.verifier = verifier;
        this.caller = caller;
    }

    @ServerRequestFilter
    public Uni<Void> authenticate(ContainerRequestContext request, SimpleResourceInfo resource) {
        Optional<RequirePermission> guard = guard(resource);
        if (guard.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        String token;
        try {
            token = bearerToken(request);
        } catch (AuthRefusedException e) {
            return Uni.createFrom().failure(e);
        }
        RequirePermission required = guard.get();
        // this request's own Caller, taken while its request context is active here: the callback may run on
        // another thread (a key-set fetch's), where no request context is (docs/architecture.md, "Mutiny callbacks
        // without context propagation")
        Caller current = ClientProxy.unwrap(caller);
        return verifier.verify(token).map(verified -> {
            current.set(permitted(verified, required.anyOf(), required.player()));
            return null;
        });
    }

    /**
     * {@code verified}, if it grants any of {@code anyOf} and, where {@code player}, is bound to a player; else
     * {@link AuthRefusedException} with DESIGN §3's code. The check of {@link RequirePermission}, for endpoints
     * served below Quarkus REST as well.
     */
    public static VerifiedToken permitted(VerifiedToken verified, String[] anyOf, boolean player) {
        if (!PermissionMatcher.grantsAny(verified.permissions(), List.of(anyOf))) {
            throw new AuthRefusedException(AuthErrorCode.INSUFFICIENT_PERMISSIONS,
                    "The token lacks any of the permissions " + String.join(", ", anyOf));
        }
        if (player && verified.player().isEmpty()) {
            throw new AuthRefusedException(AuthErrorCode.INVALID_TOKEN_CLAIMS, "The token is not bound to a player");
        }
        return verified;
    }

    private Optional<RequirePermission> guard(SimpleResourceInfo resource) {
        Class<?> type = resource.getResourceClass();
        if (type == null) {
            return UNGUARDED;
        }
        Method method;
        try {
            method = type.getMethod(resource.getMethodName(), resource.parameterTypes());
        } catch (NoSuchMethodException e) {
            return UNGUARDED;
        }
        return guards.computeIfAbsent(method, m -> Optional.ofNullable(m.getAnnotation(RequirePermission.class))
                .or(() -> Optional.ofNullable(type.getAnnotation(RequirePermission.class))));
    }

    static String bearerToken(ContainerRequestContext request) {
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        return token(header != null ? header : fromCookie(request.getCookies().get(HttpHeaders.AUTHORIZATION)));
    }

    /**
     * The same for a request served by a Vert.x route, read exactly as Quarkus REST reads it: several
     * {@code Authorization} headers are one value joined by commas; the {@code Authorization} cookie is the last
     * of that name over all {@code Cookie} headers, parsed by RESTEasy Reactive's own cookie parser.
     */
    public static String bearerToken(HttpServerRequest request) {
        List<String> values = request.headers().getAll(HttpHeaders.AUTHORIZATION);
        if (values.isEmpty()) {
            Cookie found = null;
            for (String header : request.headers().getAll(HttpHeaders.COOKIE)) {
                for (Cookie cookie : CookieParser.parseCookies(header)) {
                    if (cookie.getName().equals(HttpHeaders.AUTHORIZATION)) {
                        found = cookie;
                    }
                }
            }
            return token(fromCookie(found));
        }
        // one header, as nearly always: its value as it is, not a copy joined from one
        return token(values.size() == 1 ? values.get(0) : String.join(",", values));
    }

    /** The {@code Authorization} value an SDK's cookie carries, URL-decoded. */
    private static String fromCookie(Cookie presented) {
        if (presented == null) {
            throw new AuthRefusedException(AuthErrorCode.MALFORMED_ACCESS, "No access token was presented");
        }
        String value = presented.getValue();
        // "%zz", a lone "%", "%FF" (not UTF-8): bad input, never a 500 nor U+FFFD in place of what was sent
        String header = value == null ? null : PercentDecoding.decode(value, 0, value.length());
        if (header == null) {
            throw new AuthRefusedException(AuthErrorCode.MALFORMED_ACCESS,
                    "The Authorization cookie is not URL-encoded");
        }
        return header;
    }

    /**
     * The token of {@code Bearer <token>} (the word in any case), whitespace around either part ignored; read in
     * place, so that the token is the one string made.
     */
    static String token(String header) {
        int start = 0;
        int end = header.length();
        while (start < end && Character.isWhitespace(header.charAt(start))) {
            start++;
        }
        while (end > start && Character.isWhitespace(header.charAt(end - 1))) {
            end--;
        }
        if (end - start <= BEARER.length() || !header.regionMatches(true, start, BEARER, 0, BEARER.length())) {
            throw new AuthRefusedException(AuthErrorCode.MALFORMED_ACCESS, "The Authorization value is not 'Bearer <token>'");
        }
        int from = start + BEARER.length();
        while (Character.isWhitespace(header.charAt(from))) {
            from++;
        }
        return header.substring(from, end);
    }
}
