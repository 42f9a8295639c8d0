package io.outpost.support.http;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Singleton;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.HttpHeaders;

import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * The {@code Allow} header Quarkus REST leaves out: a 405 of a resource path carries none (RFC 9110 §15.5.6 says it
 * must), and OPTIONS lists every method of the resource class plus HEAD, whichever path of the class was asked.
 * Here both carry the methods of the path asked, read from the resource classes of the service (every bean whose
 * class is annotated {@link Path}): those its resource methods declare, HEAD with GET, and OPTIONS. The table is
 * built once, at start.
 * <p>
 * Paths served by plain routes (the long poll) are not in the table: they answer their own 405 and OPTIONS.
 */
@Singleton
public class AllowHeaders {

    private enum Verb {
        GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS
    }

    /**
     * A path template of a resource method as its segments (null for a parameter: one or more characters, no
     * {@code /}), its literal characters, and the Allow value of the paths it matches.
     */
    private record Route(String[] segments, int literals, String allow) {
    }

    private final List<Route> routes;

    public AllowHeaders(BeanManager beans) {
        this.routes = routes(beans.getBeans(Object.class, Any.Literal.INSTANCE).stream().map(Bean::getBeanClass)
                .filter(type -> type.isAnnotationPresent(Path.class)).distinct().toList());
    }

    /** Ahead of the framework, so that it sees the framework's refusals too. */
    void install(@Observes @Priority(0) Router router) {
        router.route().order(RouteConstants.ROUTE_ORDER_ACCESS_LOG_HANDLER).handler(this::handle);
    }

    /**
     * Only a path of the table ever gets the header, so only a request for one waits for its answer's headers:
     * every other request (the long poll's) passes with one look-up that allocates nothing. RequestUriCheck, the
     * route before, has refused any URI too malformed to normalise.
     */
    private void handle(RoutingContext context) {
        String allow = allow(context.normalizedPath());
        if (allow != null) {
            boolean options = context.request().method() == io.vertx.core.http.HttpMethod.OPTIONS;
            context.addHeadersEndHandler(ignored -> {
                HttpServerResponse response = context.response();
                int status = response.getStatusCode();
                if (status == 405 || options && status < 300) {
                    response.headers().set(HttpHeaders.ALLOW, allow);
                }
            });
        }
        context.next();
    }

    /** The Allow value of {@code path}, or null when no resource of this service answers it. */
    String allow(String path) {
        String trimmed = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        for (Route route : routes) {
            if (matches(route.segments(), trimmed)) {
                return route.allow();
            }
        }
        return null;
    }

    /** Every path of the resources, with the methods its resource methods declare (HEAD with GET, and OPTIONS). */
    private static List<Route> routes(List<Class<?>> resources) {
        List<Route> routes = new ArrayList<>();
        for (Class<?> resource : resources) {
            String base = resource.getAnnotation(Path.class).value();
            Map<String, Set<Verb>> byPath = new LinkedHashMap<>();
            for (Method method : resource.getMethods()) {
                Verb verb = verb(method);
                if (verb == null) {
                    continue;
                }
                Path sub = method.getAnnotation(Path.class);
                String template = sub == null ? base : base + (sub.value().startsWith("/") ? "" : "/") + sub.value();
                byPath.computeIfAbsent(template, t -> EnumSet.of(Verb.OPTIONS)).add(verb);
            }
            byPath.forEach((template, verbs) -> {
                if (verbs.contains(Verb.GET)) {
                    verbs.add(Verb.HEAD);
                }
                routes.add(new Route(segments(template), template.replaceAll("\\{[^}]*}", "").length(),
                        verbs.stream().map(Verb::name).collect(Collectors.joining(", "))));
            });
        }
        // as JAX-RS matches: the template with more literal characters first (/a/list before /a/{id})
        routes.sort(Comparator.comparingInt(Route::literals).reversed());
        return List.copyOf(routes);
    }

    private static Verb verb(Method method) {
        for (var annotation : method.getAnnotations()) {
            HttpMethod http = annotation.annotationType().getAnnotation(HttpMethod.class);
            if (http != null) {
                return Verb.valueOf(http.value());
            }
        }
        return null;
    }

    /** Whether {@code path} is the template of {@code segments}, read without a regular expression or allocation. */
    static boolean matches(String[] segments, String path) {
        if (segments.length == 0) {
            return path.equals("/");
        }
        int at = 0;
        for (String segment : segments) {
            if (at == path.length() || path.charAt(at) != '/') {
                return false;
            }
            int end = path.indexOf('/', ++at);
            end = end < 0 ? path.length() : end;
            if (segment == null ? end == at : end - at != segment.length() || !path.startsWith(segment, at)) {
                return false;
            }
            at = end;
        }
        return at == path.length();
    }

    /** {@code /a/{id}/b} → {@code ["a", null, "b"]}; {@code /} → none. */
    static String[] segments(String template) {
        List<String> segments = new ArrayList<>();
        for (String segment : template.split("/")) {
            if (!segment.isEmpty()) {
                segments.add(segment.startsWith("{") ? null : segment);
            }
        }
        return segments.toArray(String[]::new);
    }
}
