package io.outpost.support.http;

import java.net.URI;
import java.net.URISyntaxException;

import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import io.outpost.model.RequestPaths;
import io.outpost.model.error.ErrorDetail;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Refuses a request whose URI is malformed ({@code ?a=%zz}, {@code ?a=%}, an illegal character) with DESIGN §5's
 * 422: {@code json_invalid} at {@code ["query"]}, or at {@code ["path"]} when the fault lies before the query.
 * Quarkus itself refuses exactly these URIs (those {@link URI} cannot parse) with a bodiless 400 before any route
 * runs, unless {@code vertx.disableURIValidation} is set, which {@link OutpostMain} does; this check, the first
 * route of every service (health and metrics included), then refuses them instead. A query whose escapes are
 * well-formed but do not decode to UTF-8 ({@code ?a=%FF}) is refused here too, the same way
 * ({@link InputParser#queryNotUtf8()}), whether or not the endpoint reads its query: no service reads a query as
 * something its client did not send, and each answers it as it answers {@code %zz}, before authentication.
 * <p>
 * It refuses as well, first, a path that another component may read as another path ({@link RequestPaths}: a
 * dot-segment, escaped or not, also before a {@code ;}; an escaped slash or backslash, once or twice; a backslash),
 * 422 {@code json_invalid} at {@code ["path"]}, e.g. {@code "Invalid path: dot-segment"}: routes match the path
 * Vert.x normalises, so a proxy that routed {@code /users/../q/metrics} by its prefix would otherwise have the
 * service answer {@code /q/metrics}.
 */
@Singleton
public class RequestUriCheck {

    private final RouteAnswers answers;

    public RequestUriCheck(RouteAnswers answers) {
        this.answers = answers;
    }

    /** Installed first, so that no route after it meets a URI it cannot normalise, or one it normalises away. */
    void install(@Observes @Priority(Integer.MIN_VALUE) Router router) {
        router.route().order(RouteConstants.ROUTE_ORDER_ACCESS_LOG_HANDLER).handler(this::check);
    }

    private void check(RoutingContext context) {
        ErrorDetail fault = fault(context.request().uri());
        if (fault == null) {
            context.next();
            return;
        }
        answers.failed(context.response(), new InvalidInputException(fault));
    }

    /** Why {@code uri} (a request target) is refused; null when it is well formed. */
    static ErrorDetail fault(String uri) {
        if (uri == null) {
            return ErrorDetail.jsonInvalid(ErrorDetail.loc("path"), "Invalid path: absent");
        }
        String pathFault = RequestPaths.fault(uri);
        if (pathFault != null) {
            return ErrorDetail.jsonInvalid(ErrorDetail.loc("path"), "Invalid path: " + pathFault);
        }
        try {
            new URI(uri);
        } catch (URISyntaxException e) {
            int query = uri.indexOf('?');
            return query >= 0 && e.getIndex() > query
                    ? ErrorDetail.jsonInvalid(ErrorDetail.loc("query"), "Invalid query string: " + e.getReason())
                    : ErrorDetail.jsonInvalid(ErrorDetail.loc("path"), "Invalid path: " + e.getReason());
        }
        return mayNotDecode(uri) && InputParser.query(uri) == null ? InputParser.queryNotUtf8() : null;
    }

    /**
     * Whether the query holds what can fail to decode — an escape, or a byte above 0x7F sent as it is — so that
     * the query is decoded here only then: a typical long poll's query ({@code ?deadline=30&…}) is scanned, not
     * decoded twice.
     */
    private static boolean mayNotDecode(String uri) {
        int query = uri.indexOf('?');
        if (query < 0) {
            return false;
        }
        for (int i = query + 1; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c == '%' || c > 0x7F) {
                return true;
            }
        }
        return false;
    }
}
