package io.outpost.auth.rest;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;

import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * What the framework does not do for auth-service's own paths, before any other route runs:
 * <ul>
 * <li>every answer of {@code /users/v2/oauth/*} — refusals of the framework (405, 404) and 422s included — carries
 * {@code Cache-Control: no-store} and {@code Pragma: no-cache} (RFC 6749 §5.1, docs/auth.md);</li>
 * <li>a 405 carries {@code Allow} (RFC 9110 §15.5.6), and an OPTIONS answer the methods of its path: Quarkus REST
 * sends none with a 405, and with OPTIONS every method of the resource class plus HEAD, even where HEAD is a
 * 405;</li>
 * <li>a {@code Content-Type} that is no media type at all ({@code foo}, {@code a/b/c}) on an OAuth or admin path is
 * handed on as an unreadable type rather than refused by the framework with 415, so that it is the same 422
 * {@code json_invalid} at {@code ["body"]} as any type those endpoints do not read ({@link FormOrJsonBody}); an
 * empty one is no Content-Type.</li>
 * </ul>
 */
@Singleton
public class EdgeHeaders {

    static final String OAUTH_PREFIX = "/users/v2/oauth/";
    /** A well-formed type no endpoint reads, standing for a malformed one. */
    static final String UNREADABLE_TYPE = "application/x-malformed-content-type";
    private static final List<Class<?>> RESOURCES = List.of(TokenResource.class, RevocationResource.class,
            IntrospectionResource.class, PublicKeysResource.class, DiscoveryResource.class, AdminClientsResource.class);

    private enum Verb {
        GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS
    }

    /** A path template of a resource and the Allow value of the paths it matches. */
    private record Route(Pattern path, String allow) {
    }

    private final List<Route> routes = routes();

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
        String allow = allow(path);
        if (oauth || allow != null) {
            boolean options = request.method() == io.vertx.core.http.HttpMethod.OPTIONS;
            context.addHeadersEndHandler(ignored -> {
                HttpServerResponse response = context.response();
                if (oauth) {
                    response.headers().set(HttpHeaders.CACHE_CONTROL, "no-store").set("Pragma", "no-cache");
                }
                int status = response.getStatusCode();
                if (allow != null && (status == 405 || options && status < 300)) {
                    response.headers().set(HttpHeaders.ALLOW, allow);
                }
            });
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

    /** The Allow value of {@code path}, or null when no resource of this service answers it. */
    String allow(String path) {
        String trimmed = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        for (Route route : routes) {
            if (route.path().matcher(trimmed).matches()) {
                return route.allow();
            }
        }
        return null;
    }

    /** Every path of the resources, with the methods its resource methods declare (HEAD with GET, and OPTIONS). */
    private static List<Route> routes() {
        List<Route> routes = new ArrayList<>();
        for (Class<?> resource : RESOURCES) {
            String base = resource.getAnnotation(Path.class).value();
            Map<String, Set<Verb>> byPath = new LinkedHashMap<>();
            for (Method method : resource.getMethods()) {
                String verb = verb(method);
                if (verb == null) {
                    continue;
                }
                Path sub = method.getAnnotation(Path.class);
                String template = sub == null ? base : base + (sub.value().startsWith("/") ? "" : "/") + sub.value();
                byPath.computeIfAbsent(template, t -> EnumSet.of(Verb.OPTIONS)).add(Verb.valueOf(verb));
            }
            byPath.forEach((template, verbs) -> {
                if (verbs.contains(Verb.GET)) {
                    verbs.add(Verb.HEAD);
                }
                routes.add(new Route(pattern(template),
                        verbs.stream().map(Verb::name).collect(Collectors.joining(", "))));
            });
        }
        return List.copyOf(routes);
    }

    private static String verb(Method method) {
        for (var annotation : method.getAnnotations()) {
            HttpMethod http = annotation.annotationType().getAnnotation(HttpMethod.class);
            if (http != null) {
                return http.value();
            }
        }
        return null;
    }

    /** {@code /a/{id}/b} → {@code /a/[^/]+/b}. */
    private static Pattern pattern(String template) {
        StringBuilder regex = new StringBuilder();
        for (String segment : template.split("/")) {
            if (!segment.isEmpty()) {
                regex.append('/').append(segment.startsWith("{") ? "[^/]+" : Pattern.quote(segment));
            }
        }
        return Pattern.compile(regex.isEmpty() ? "/" : regex.toString());
    }
}
