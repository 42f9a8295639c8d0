package io.outpost.support.security;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

import io.outpost.testsupport.TestTokens;

/** Requests that arrive while the key set is being fetched wait for that fetch instead of being refused. */
class JwksKeySourceTest {

    @Test
    void burstBeforeTheFirstFetchCompletesIsServedByThatFetch() throws Exception {
        byte[] jwks = java.nio.file.Files.readAllBytes(java.nio.file.Path.of(java.net.URI.create(TestTokens.shared().jwksUrl())));
        AtomicInteger fetches = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/keys", exchange -> {
            fetches.incrementAndGet();
            try {
                Thread.sleep(300); // a slow auth-service
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.sendResponseHeaders(200, jwks.length);
            exchange.getResponseBody().write(jwks);
            exchange.close();
        });
        server.start();
        try {
            JwksKeySource keys = new JwksKeySource(config("http://127.0.0.1:" + server.getAddress().getPort() + "/keys"));
            List<Optional<java.security.Key>> found = new ArrayList<>();
            var first = keys.key(TestTokens.ES256_KID).subscribeAsCompletionStage();
            var second = keys.key(TestTokens.ES256_KID).subscribeAsCompletionStage();
            var third = keys.key(TestTokens.RS256_KID).subscribeAsCompletionStage();
            found.add(first.get());
            found.add(second.get());
            found.add(third.get());
            assertTrue(found.stream().allMatch(Optional::isPresent), "every request found its key: " + found);
            assertTrue(fetches.get() == 1, "one fetch served the burst, was " + fetches.get());
        } finally {
            server.stop(0);
        }
    }

    private static SecurityConfig config(String url) {
        return new SecurityConfig() {
            public String jwksUrl() { return url; }
            public String issuer() { return TestTokens.ISSUER; }
            public String audience() { return TestTokens.AUDIENCE; }
            public Duration clockSkew() { return Duration.ofSeconds(30); }
            public Duration jwksRefresh() { return Duration.ofMinutes(5); }
            public Duration jwksMinRefresh() { return Duration.ofSeconds(10); }
            public int verifiedTokenCacheSize() { return 100; }
        };
    }
}
