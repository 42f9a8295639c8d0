package io.outpost.auth.rest;

import java.util.List;

import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;

import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * What the framework does not do for auth-service's own paths, before any other route runs:
 * <ul>
 * <li>every answer of {@code /users/v2/oauth/*} — refusals of the framework (405, 404) and 422s included — carries
 * {@code Cache-Control: no-store} and {@code Pragma: no-cache} (RFC 6749 §5.1, docs/auth.md);</li>
 * <li>a {@code Content-Type} that is no media type at all ({@code foo}, {@code a/b/c}) on an OAuth or admin path is
 * handed on as an unreadable type rather than refused by the framework with 415, so that it is the same 422
 * {@code json_invalid} at {@code ["body"]} as any type those endpoints do not read ({@link FormOrJsonBody}); an
 * empty one is no Content-Type.</li>
 * </ul>
 * The {@code Allow} header of 405 and OPTIONS answers is set for every service by
 * {@link io.outpost.support.http.AllowHeaders}.
 */
@Singleton
public class EdgeHeaders {

    static final String OAUTH_PREFIX = "/users/v2/oauth/";
    /** A well-formed type no endpoint reads, standing for a malformed one. */
    static final String UNREADABLE_TYPE = "application/x-malformed-content-type";

    /** First of the routes ahead of the framework, so that it sees the refusals of the routes after it too. */
    void install(@Observes @Priority(0) Router router) {
        router.route().order(RouteConstants.ROUTE_ORDER_ACCESS_LOG_HANDLER).handler(this::handle);
    }

    private void handle(RoutingContext context) {
        HttpServerRequest request = context.request();
        String path = context.normalizedPath();
        boolean oauth = path.startsWith(OAUTH_PREFIX);
        if (oauth || path.equals(AdminListener.PREFIX) || path.startsWith(AdminListener.PREFIX + "/")) {
            handOnContentType(request);
        }
        if (oauth) {
            context.addHeadersEndHandler(ignored -> context.response().headers()
                    .set(HttpHeaders.CACHE_CONTROL, "no-store").set("Pragma", "no-cache"));
        }
        context.next();
    }

    private static void handOnContentType(HttpServerRequest request) {
        List<String> types = request.headers().getAll(HttpHeaders.CONTENT_TYPE);
        if (types.isEmpty()) {
            return;
        }
        if (types.size() == 1 && types.get(0).isBlank()) {
            request.headers().remove(HttpHeaders.CONTENT_TYPE);
            return;
        }
        try {
            if (types.size() == 1) {
                MediaType.valueOf(types.get(0));
                return;
            }
        } catch (IllegalArgumentException malformed) {
            // handed on below
        }
        request.headers().set(HttpHeaders.CONTENT_TYPE, UNREADABLE_TYPE);
    }
}
