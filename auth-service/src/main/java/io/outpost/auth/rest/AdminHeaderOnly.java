package io.outpost.auth.rest;

import java.util.Set;

import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.HttpHeaders;

import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.SimpleResourceInfo;

import io.outpost.model.error.AuthErrorCode;
import io.outpost.support.security.AuthRefusedException;
import io.vertx.core.http.HttpServerRequest;

/**
 * A call that changes something on the admin API takes its token from the {@code Authorization} header only, never
 * from the {@code Authorization} cookie that service-support's bearer check also reads (game SDKs send it): a
 * browser attaches a cookie to any request a page makes — a bodiless POST included, which needs no preflight — so
 * an administrator's cookie would let any site they visit disable clients or rotate secrets (cross-site request
 * forgery). Reads (GET, HEAD, OPTIONS) still accept the cookie: a page can make them but cannot read their answers.
 * Runs after the public port's 404 ({@link AdminListener}) and before the bearer check.
 */
public class AdminHeaderOnly {

    private static final Set<String> READS = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS);

    @ServerRequestFilter(priority = Priorities.AUTHENTICATION - 50)
    public void refuseCookieCredentialsForChanges(SimpleResourceInfo resource, HttpServerRequest request) {
        Path path = resource.getResourceClass() == null ? null : resource.getResourceClass().getAnnotation(Path.class);
        boolean admin = path != null
                && (path.value().equals(AdminListener.PREFIX) || path.value().startsWith(AdminListener.PREFIX + "/"));
        if (admin && !READS.contains(request.method().name()) && request.getHeader(HttpHeaders.AUTHORIZATION) == null) {
            throw new AuthRefusedException(AuthErrorCode.MALFORMED_ACCESS,
                    "A change through the admin API takes its access token from the Authorization header only");
        }
    }
}
