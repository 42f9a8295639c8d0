package io.outpost.support.security;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.is;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

import io.outpost.model.Permissions;
import io.outpost.testsupport.TestTokens;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * The first verified request fetches the key set (docs/architecture.md: "never blocking a thread"), and no part of
 * that fetch may hold up the event loop that request arrived on. The audit that found it saw a loop blocked 2.9 s:
 * the JDK HTTP client was built and first used on the loop, and its first use (its classes, its selector thread,
 * TLS and security providers) is slow on a loaded machine and runs on the calling thread. Here the service has a
 * single event loop and the first fetch is made slow twice: the HTTP client's own work on the thread that sends
 * (its proxy lookup, which the JDK does on the calling thread, stalls 3 s the first time — standing for the cold
 * start that took 2.9 s) and then auth-service's answer (2 s). While each lasts, another request on that loop must
 * be answered at once; the first request is answered once the keys arrive.
 */
@QuarkusTest
@WithTestResource(KeySetFetchOffTheEventLoopTest.SlowFirstKeySetFetch.class)
class KeySetFetchOffTheEventLoopTest {

    private static final Duration PROMPTLY = Duration.ofSeconds(1);
    private static final UUID PLAYER = UUID.fromString("1f0e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b");

    /** Counted down when the HTTP client's stalled first step begins, and when auth-service holds its answer. */
    CountDownLatch[] stalls;
    /** The name of the thread that ran the HTTP client's first step. */
    AtomicReference<String> firstStepThread;
    AtomicInteger fetches;

    @Test
    void aSlowFirstKeySetFetchDelaysNoOtherRequestOnTheEventLoop() throws Exception {
        given().when().get("/guarded/open").then().statusCode(200); // the application's own first request
        String token = "Bearer " + TestTokens.shared().token().permissions(Permissions.NOTIFICATION_PLAYER_READ)
                .player(PLAYER).client("first-of-the-day").sign();
        CompletableFuture<Response> first = CompletableFuture.supplyAsync(
                () -> given().header("Authorization", token).when().get("/guarded/player-on-event-loop"));

        assertThat(stalls[0].await(20, TimeUnit.SECONDS)).as("the first verified request starts the key-set fetch")
                .isTrue();
        assertAnsweredPromptly("while the HTTP client's first step stalls (on thread " + firstStepThread.get() + ")");
        assertThat(stalls[1].await(20, TimeUnit.SECONDS)).as("the fetch reaches auth-service").isTrue();
        assertAnsweredPromptly("while auth-service holds its answer");
        assertThat(first).as("the first request waits for the keys meanwhile").isNotDone();

        first.get(30, TimeUnit.SECONDS).then().statusCode(200).body("player", is(PLAYER.toString()))
                .body("client_id", is("first-of-the-day"));
        assertThat(fetches.get()).isEqualTo(1);
    }

    private static void assertAnsweredPromptly(String when) {
        long start = System.nanoTime();
        given().when().get("/guarded/open").then().statusCode(200);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).as("another request on the same event loop, " + when + ", answered in %d ms",
                took.toMillis()).isLessThan(PROMPTLY);
    }

    /**
     * auth-service's key set, served after {@value #ANSWER_DELAY_MS} ms; the JDK's default proxy selector,
     * consulted by the JDK HTTP client on the thread that sends, stalls {@value #FIRST_STEP_STALL_MS} ms the first time
     * it is asked about that URL. One event loop, so "another request" shares the first one's loop.
     */
    public static class SlowFirstKeySetFetch implements QuarkusTestResourceLifecycleManager {

        static final long FIRST_STEP_STALL_MS = 3_000;
        static final long ANSWER_DELAY_MS = 2_000;

        private final CountDownLatch[] stalls = { new CountDownLatch(1), new CountDownLatch(1) };
        private final AtomicReference<String> firstStepThread = new AtomicReference<>();
        private final AtomicInteger fetches = new AtomicInteger();
        private HttpServer server;
        private ProxySelector previous;

        @Override
        public Map<String, String> start() {
            try {
                server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            server.createContext("/keys", exchange -> {
                fetches.incrementAndGet();
                stalls[1].countDown();
                sleep(ANSWER_DELAY_MS);
                byte[] body = Files.readAllBytes(Path.of(URI.create(TestTokens.shared().jwksUrl())));
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            server.setExecutor(null);
            server.start();
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/keys";
            previous = ProxySelector.getDefault();
            ProxySelector.setDefault(new StallingOnce(previous, URI.create(url), stalls[0], firstStepThread));
            return Map.of("outpost.security.jwks-url", url,
                    "outpost.security.jwks-refresh", "PT10M", // one fetch in this test
                    "quarkus.vertx.event-loops-pool-size", "1");
        }

        /** After {@code OutpostTestResource}, whose key-set URL this one replaces. */
        @Override
        public int order() {
            return 100;
        }

        @Override
        public void inject(TestInjector injector) {
            injector.injectIntoFields(stalls, new TestInjector.MatchesType(CountDownLatch[].class));
            injector.injectIntoFields(firstStepThread, new TestInjector.MatchesType(AtomicReference.class));
            injector.injectIntoFields(fetches, new TestInjector.MatchesType(AtomicInteger.class));
        }

        @Override
        public void stop() {
            ProxySelector.setDefault(previous);
            server.stop(0);
        }
    }

    /** Delegates; the first question about {@code slow} waits first. */
    static final class StallingOnce extends ProxySelector {

        private final ProxySelector delegate;
        private final URI slow;
        private final CountDownLatch entered;
        private final AtomicReference<String> thread;
        private final AtomicBoolean stalled = new AtomicBoolean();

        StallingOnce(ProxySelector delegate, URI slow, CountDownLatch entered, AtomicReference<String> thread) {
            this.delegate = delegate;
            this.slow = slow;
            this.entered = entered;
            this.thread = thread;
        }

        @Override
        public List<Proxy> select(URI uri) {
            if (uri.getPort() == slow.getPort() && uri.getPath().equals(slow.getPath()) && stalled.compareAndSet(false, true)) {
                thread.set(Thread.currentThread().getName());
                entered.countDown();
                sleep(SlowFirstKeySetFetch.FIRST_STEP_STALL_MS);
            }
            return delegate == null ? List.of(Proxy.NO_PROXY) : delegate.select(uri);
        }

        @Override
        public void connectFailed(URI uri, SocketAddress address, IOException failure) {
            if (delegate != null) {
                delegate.connectFailed(uri, address, failure);
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
