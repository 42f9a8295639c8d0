package io.outpost.support.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

import io.outpost.testsupport.MutableClock;
import io.outpost.testsupport.TestTokens;

/**
 * The key-set fetcher against a real HTTP server: one fetch at a time, exponential back-off after failures
 * (whatever asks), min-refresh for unknown key ids, and a removed key leaving within one refresh. Time moves
 * through a {@link MutableClock}; nothing sleeps to wait for an effect.
 */
class JwksKeySourceTest {

    private final MutableClock clock = MutableClock.frozenAt(java.time.Instant.parse("2026-01-01T00:00:00Z"));
    private final AtomicInteger fetches = new AtomicInteger();
    private volatile int status = 200;
    private volatile byte[] body;
    private volatile long delayMillis;
    private HttpServer server;

    @BeforeEach
    void start() throws Exception {
        body = Files.readAllBytes(Path.of(java.net.URI.create(TestTokens.shared().jwksUrl())));
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/keys", exchange -> {
            fetches.incrementAndGet();
            try {
                Thread.sleep(delayMillis); // a slow auth-service, when asked for
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] answer = status == 200 ? body : "{\"error\":\"down\"}".getBytes();
            exchange.sendResponseHeaders(status, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void burstBeforeTheFirstFetchCompletesIsServedByThatFetch() throws Exception {
        delayMillis = 300;
        JwksKeySource keys = source(Duration.ofSeconds(10), Duration.ofMinutes(5));
        List<CompletableFuture<Optional<PublicKey>>> found = new ArrayList<>();
        for (String kid : List.of(TestTokens.ES256_KID, TestTokens.ES256_KID, TestTokens.RS256_KID)) {
            found.add(keys.key(kid).subscribeAsCompletionStage());
        }
        for (CompletableFuture<Optional<PublicKey>> key : found) {
            assertThat(key.get(10, TimeUnit.SECONDS)).isPresent();
        }
        assertThat(fetches.get()).as("one fetch served the burst").isEqualTo(1);
    }

    @Test
    void failuresBackOffExponentiallyUpToTheMaximumWhateverAsks() {
        status = 503;
        JwksKeySource keys = source(Duration.ofSeconds(10), Duration.ofSeconds(4));
        assertThat(lookUp(keys, "any")).isEmpty();
        for (int i = 0; i < 50; i++) { // a flood of requests, known and unknown key ids, during the pause
            assertThat(lookUp(keys, "made-up-" + i)).isEmpty();
            keys.published(TestTokens.ES256_KID);
        }
        assertThat(fetches.get()).as("one fetch, then a pause").isEqualTo(1);
        for (long pause : new long[] { 1, 2, 4, 4, 4 }) { // seconds: doubling, bounded by jwks-max-backoff
            int before = fetches.get();
            clock.advance(Duration.ofSeconds(pause).minusMillis(100));
            assertThat(lookUp(keys, "any")).isEmpty();
            assertThat(fetches.get()).as("no fetch before the %d s pause ends", pause).isEqualTo(before);
            clock.advance(Duration.ofMillis(100));
            assertThat(lookUp(keys, "any")).isEmpty();
            assertThat(fetches.get()).as("one fetch when the %d s pause ends", pause).isEqualTo(before + 1);
        }
        status = 200;
        clock.advance(Duration.ofSeconds(4));
        assertThat(lookUp(keys, TestTokens.ES256_KID)).as("recovers once auth-service answers").isPresent();
    }

    @Test
    void unknownKeyIdsFetchAtMostOncePerMinRefresh() {
        JwksKeySource keys = source(Duration.ofSeconds(10), Duration.ofMinutes(5));
        assertThat(lookUp(keys, TestTokens.ES256_KID)).isPresent();
        for (int i = 0; i < 20; i++) {
            assertThat(lookUp(keys, "made-up-" + i)).isEmpty();
        }
        assertThat(fetches.get()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(10));
        assertThat(lookUp(keys, "made-up-again")).isEmpty();
        assertThat(fetches.get()).isEqualTo(2);
    }

    @Test
    void aKeyRemovedFromTheSetLeavesWithinOneRefresh() {
        JwksKeySource keys = source(Duration.ofSeconds(10), Duration.ofMinutes(5));
        assertThat(lookUp(keys, TestTokens.RS256_KID)).isPresent();
        body = new String(body).replaceAll("\\{[^{}]*\"kid\":\"" + TestTokens.RS256_KID + "\"[^{}]*\\},?", "")
                .replace(",]", "]").getBytes();
        assertThat(new String(body)).doesNotContain(TestTokens.RS256_KID).contains(TestTokens.ES256_KID);
        clock.advance(Duration.ofMinutes(4));
        assertThat(keys.published(TestTokens.RS256_KID)).as("before the refresh is due").isTrue();
        clock.advance(Duration.ofMinutes(1));
        keys.published(TestTokens.RS256_KID); // starts the refresh
        await().atMost(Duration.ofSeconds(10)).until(() -> !keys.published(TestTokens.RS256_KID));
        assertThat(keys.published(TestTokens.ES256_KID)).isTrue();
        assertThat(fetches.get()).isEqualTo(2);
    }

    private static Optional<PublicKey> lookUp(JwksKeySource keys, String kid) {
        return keys.key(kid).await().atMost(Duration.ofSeconds(10));
    }

    private JwksKeySource source(Duration minRefresh, Duration maxBackoff) {
        String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/keys";
        return new JwksKeySource(new SecurityConfig() {
            public String jwksUrl() { return url; }
            public String issuer() { return TestTokens.ISSUER; }
            public String audience() { return TestTokens.AUDIENCE; }
            public Duration jwksRefresh() { return Duration.ofMinutes(5); }
            public Duration jwksMinRefresh() { return minRefresh; }
            public Duration jwksMaxBackoff() { return maxBackoff; }
            public int verifiedTokenCacheSize() { return 100; }
            public Revocation revocation() { return null; }
        }, clock);
    }
}
