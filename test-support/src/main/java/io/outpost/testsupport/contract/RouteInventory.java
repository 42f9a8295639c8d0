package io.outpost.testsupport.contract;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;

/**
 * The routes a service answers, found from its code rather than from its OpenAPI document: its Quarkus REST
 * resources (the {@code @Path} classes of its own {@code target/classes}) and the Vert.x routes it adds to the main
 * router. Each route is {@code "GET /path/{}"} (a path parameter of any name is {@code {}}), or {@code "* /path"}
 * for a Vert.x route that answers every method. Quarkus's own paths ({@code /q/…}) and the routes that only filter
 * every request (no path) are left out. A bean of the tests (test-support's {@code beans.xml}).
 */
@ApplicationScoped
public class RouteInventory {

    private static final String GUARD = "RequirePermission";
    private volatile Router router;

    void capture(@Observes Router main) {
        this.router = main;
    }

    /** Every route of the service: its resources' and its Vert.x routes'. */
    public Set<String> routes() {
        Set<String> routes = resources(Path.of("target", "classes"), false);
        for (Route route : router.getRoutes()) {
            String path = route.getPath();
            if (path == null || path.equals("/") || path.startsWith("/q/") || path.equals("/q")) {
                continue;
            }
            String template = template(path);
            if (route.methods() == null || route.methods().isEmpty()) {
                routes.add("* " + template);
            } else {
                route.methods().forEach(m -> routes.add(m.name() + " " + template));
            }
        }
        return routes;
    }

    /** The routes of the resources guarded by a bearer token ({@code @RequirePermission} on the class or method). */
    public Set<String> guardedRoutes() {
        return resources(Path.of("target", "classes"), true);
    }

    /** {@code "GET /a/{x}/b"} of a document as a route: {@code "GET /a/{}/b"}. */
    public static String template(String route) {
        return route.replaceAll("\\{[^}]*}", "{}").replaceAll(":[A-Za-z0-9_]+", "{}");
    }

    private static Set<String> resources(Path classes, boolean guardedOnly) {
        Set<String> routes = new TreeSet<>();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
                String name = classes.relativize(file).toString().replace('/', '.').replaceAll("\\.class$", "");
                Class<?> type;
                try {
                    type = Class.forName(name, false, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    continue;
                }
                String base = pathOf(type.getAnnotations());
                if (base != null) {
                    add(routes, type, base, guardedOnly);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return routes;
    }

    private static void add(Set<String> routes, Class<?> type, String base, boolean guardedOnly) {
        boolean typeGuarded = annotated(type.getAnnotations(), GUARD);
        for (Method method : type.getDeclaredMethods()) {
            String http = httpMethod(method.getAnnotations());
            if (http == null || guardedOnly && !typeGuarded && !annotated(method.getAnnotations(), GUARD)) {
                continue;
            }
            String sub = pathOf(method.getAnnotations());
            String path = join(base, sub == null ? "" : sub);
            routes.add(http + " " + template(path));
        }
    }

    private static String join(String base, String sub) {
        String joined = ("/" + base + "/" + sub).replaceAll("/+", "/");
        return joined.length() > 1 && joined.endsWith("/") ? joined.substring(0, joined.length() - 1) : joined;
    }

    /** The value of a {@code jakarta.ws.rs.Path} among {@code annotations}, read by name (no JAX-RS API here). */
    private static String pathOf(Annotation[] annotations) {
        for (Annotation a : annotations) {
            if (a.annotationType().getName().equals("jakarta.ws.rs.Path")) {
                try {
                    return (String) a.annotationType().getMethod("value").invoke(a);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return null;
    }

    /** {@code GET}, {@code POST} …: the annotation that is itself annotated {@code jakarta.ws.rs.HttpMethod}. */
    private static String httpMethod(Annotation[] annotations) {
        for (Annotation a : annotations) {
            for (Annotation meta : a.annotationType().getAnnotations()) {
                if (meta.annotationType().getName().equals("jakarta.ws.rs.HttpMethod")) {
                    return a.annotationType().getSimpleName();
                }
            }
        }
        return null;
    }

    private static boolean annotated(Annotation[] annotations, String simpleName) {
        for (Annotation a : annotations) {
            if (a.annotationType().getSimpleName().equals(simpleName)) {
                return true;
            }
        }
        return false;
    }
}
