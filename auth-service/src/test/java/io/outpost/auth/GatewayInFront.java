package io.outpost.auth;

import static io.restassured.RestAssured.given;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.eclipse.microprofile.config.ConfigProvider;

import io.outpost.testsupport.local.Gateway;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import io.vertx.core.Vertx;

/**
 * The local stack's {@link Gateway} in front of the service under test, as the ingress is in Kubernetes. Its port is
 * reserved before Quarkus starts, so that the service's {@code outpost.auth.public-base-url} is the gateway's URL;
 * the gateway itself starts at first use, in front of the running service.
 */
@WithTestResource(value = GatewayInFront.PublicBaseUrl.class, scope = TestResourceScope.GLOBAL)
public final class GatewayInFront {

    private static Vertx vertx;

    private GatewayInFront() {
    }

    /** Reserves the gateway's port and makes its URL the service's public base URL. */
    public static class PublicBaseUrl implements QuarkusTestResourceLifecycleManager {
        @Override
        public Map<String, String> start() {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                return Map.of("outpost.auth.public-base-url", "http://127.0.0.1:" + socket.getLocalPort());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void stop() {
        }
    }

    /** The gateway's URL (the service's public base URL); starts the gateway on first use. */
    public static synchronized String url() {
        String url = ConfigProvider.getConfig().getValue("outpost.auth.public-base-url", String.class);
        if (vertx == null) {
            Map<String, Integer> routes = new LinkedHashMap<>();
            routes.put("/users", RestAssured.port);
            routes.put("/.well-known", RestAssured.port);
            vertx = Vertx.vertx();
            try {
                new Gateway(vertx, routes).listen("127.0.0.1", URI.create(url).getPort()).toCompletionStage()
                        .toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("the test gateway cannot listen at " + url, e);
            }
            Vertx started = vertx;
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "test-gateway-stop"));
        }
        return url;
    }

    /** The OpenID Connect discovery document as read through the gateway. */
    public static JsonPath discovery() {
        return given().get(url() + "/.well-known/openid-configuration").then().statusCode(200).extract().jsonPath();
    }
}
