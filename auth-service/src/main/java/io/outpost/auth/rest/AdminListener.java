package io.outpost.auth.rest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.RestResponse;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.SimpleResourceInfo;

import io.outpost.auth.config.AuthConfig;
import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.quarkus.vertx.http.runtime.VertxHttpRecorder;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * The private admin API (docs/deploy.md, "The admin API"). Client administration is answered only on a listener of
 * its own ({@code outpost.auth.admin.port}); the public port answers its paths 404, as if they did not exist, and
 * the admin port answers nothing else. Requests on both ports run through the same Quarkus HTTP stack (body
 * limits, forwarded headers, bearer verification): the second listener hands them to Quarkus's root handler, so
 * {@link AdminClientsResource} is served unchanged. Quarkus's own management interface cannot carry REST
 * resources, hence this listener. Its {@code /q/openapi} is the admin API's own document ({@link AdminDocument}).
 */
@ApplicationScoped
public class AdminListener {

    static final String PREFIX = "/users/v1/admin";
    static final String NOT_FOUND = "{\"error_code\":\"not_found\",\"desc\":\"No such resource\"}";
    private static final Logger LOG = Logger.getLogger(AdminListener.class);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final AuthConfig config;
    private final String mainHost;
    private final int mainPort;
    private final AdminDocument document = AdminDocument.load();
    private volatile HttpServer server;

    public AdminListener(AuthConfig config, @ConfigProperty(name = "quarkus.http.host") String mainHost,
            @ConfigProperty(name = "quarkus.http.port") int port, @ConfigProperty(name = "quarkus.http.test-port") int testPort) {
        this.config = config;
        this.mainHost = mainHost;
        this.mainPort = LaunchMode.current() == LaunchMode.TEST ? testPort : port;
    }

    void start(@Observes StartupEvent started, Vertx vertx) {
        String host = config.admin().host().orElse(mainHost);
        int port = config.admin().port() == 0 && mainPort > 0 ? freePort() : config.admin().port();
        // Quarkus's HTTP metrics tag a server with its port when its options name one; both servers must agree
        // (a fixed main port and a free admin port) or the registry refuses the second server's meters
        HttpServerOptions options = new HttpServerOptions().setHost(host).setPort(mainPort > 0 ? port : 0)
                .setIdleTimeout(60)
                // HTTP/1.1 only, as the public port (quarkus.http.http2=false): Vert.x's h2c decoder checks no
                // header values (docs/architecture.md, "HTTP/1.1 only")
                .setHttp2ClearTextEnabled(false);
        server = vertx.createHttpServer(options)
                .requestHandler(request -> VertxHttpRecorder.getRootHandler().handle(request))
                .listen(port, host)
                .toCompletionStage().toCompletableFuture().orTimeout(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS).join();
        LOG.infof("Client administration (%s) listens on %s:%d only", PREFIX, host, server.actualPort());
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void stop(@Observes ShutdownEvent stopping) {
        HttpServer running = server;
        if (running != null) {
            running.close().toCompletionStage().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS)
                    .exceptionally(failure -> null).join();
        }
    }

    /** Runs before every resource, on both listeners. */
    void guard(@Observes Router router) {
        router.route().order(RouteConstants.ROUTE_ORDER_BEFORE_DEFAULT).handler(this::admit);
        // ahead of Quarkus's own /q/openapi, which would answer the public document on this port too
        router.get(AdminDocument.PATH).order(RouteConstants.ROUTE_ORDER_BODY_HANDLER + 1).handler(context -> {
            if (onAdminPort(context.request())) {
                document.answer(context);
            } else {
                context.next();
            }
        });
    }

    /** The port the admin API answers on (the chosen one when configured as 0). */
    public int port() {
        return server.actualPort();
    }

    /** By path, before anything else runs: admin paths only on the admin port, and nothing else there. */
    private void admit(RoutingContext context) {
        String path = context.normalizedPath();
        boolean adminPath = path.equals(PREFIX) || path.startsWith(PREFIX + "/");
        if (adminPath == onAdminPort(context.request())) {
            context.next();
        } else {
            context.response().setStatusCode(404).putHeader("Content-Type", "application/json").end(NOT_FOUND);
        }
    }

    /**
     * By the resource a request matched, whatever spelling of the path reached it (matrix parameters, encoded or
     * doubled slashes): every resource under {@value #PREFIX} answers only on the admin port. Runs before the
     * bearer check, so the public port answers 404 with or without a token.
     */
    @ServerRequestFilter(priority = Priorities.AUTHENTICATION - 100)
    public Optional<RestResponse<String>> refuseAdminResourcesOnThePublicPort(SimpleResourceInfo resource,
            HttpServerRequest request) {
        Path path = resource.getResourceClass().getAnnotation(Path.class);
        boolean adminResource = path != null && (path.value().equals(PREFIX) || path.value().startsWith(PREFIX + "/"));
        if (!adminResource || onAdminPort(request)) {
            return Optional.empty();
        }
        return Optional.of(RestResponse.ResponseBuilder.create(RestResponse.Status.NOT_FOUND, NOT_FOUND)
                .type(MediaType.APPLICATION_JSON_TYPE).build());
    }

    private boolean onAdminPort(HttpServerRequest request) {
        HttpServer admin = server;
        return admin != null && request.localAddress() != null && request.localAddress().port() == admin.actualPort();
    }
}
