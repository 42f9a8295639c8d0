package io.outpost.auth;

import static io.outpost.auth.TestClients.ADMIN;
import static io.outpost.auth.TestClients.ADMIN_SECRET;
import static io.outpost.auth.TestClients.GAME;
import static io.outpost.auth.TestClients.GAME_SECRET;
import static io.outpost.auth.TestClients.GRANT;
import static io.outpost.auth.TestClients.TOKEN_PATH;
import static io.outpost.auth.TestClients.basic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.outpost.auth.rest.AdminListener;
import io.outpost.testsupport.MutableClock;
import io.outpost.testsupport.ProcessFreeze;
import io.quarkus.arc.Arc;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Issue 9 on auth-service: with PostgreSQL frozen (SIGSTOP — to clients it looks like a network partition: no
 * answer, no refusal), clients whose record auth-service holds keep getting tokens, everything else that needs the
 * database answers 503 {@code store_unavailable} within seconds, readiness answers DOWN within a probe's timeout,
 * and credentials PostgreSQL could not even store are the usual 401. Every request here gives up after 10 s, so a
 * hang fails the test instead of stalling it.
 */
@QuarkusTest
class PausedDatabaseTest {

    private static final Duration GIVE_UP = Duration.ofSeconds(10);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TestHTTPResource("/")
    URL base;

    @Inject
    MutableClock clock;

    @Test
    void withPostgresqlFrozenKnownClientsKeepGettingTokensAndTheRestAnswers503WithinSeconds() throws Exception {
        assertThat(token(GAME, GAME_SECRET).statusCode()).isEqualTo(200);
        String known401 = "paused-unknown-" + UUID.randomUUID();
        assertThat(token(known401, "x").statusCode()).isEqualTo(401);
        String admin = TestClients.token(ADMIN, ADMIN_SECRET);
        try (ProcessFreeze frozen = ProcessFreeze.postgres()) {
            clock.advance(Duration.ofSeconds(11)); // every cached record is past 2 × client-cache-ttl: read again
            HttpResponse<String> game = token(GAME, GAME_SECRET);
            assertThat(game.statusCode()).as(game.body()).isEqualTo(200);
            assertThat(token(GAME, GAME_SECRET).statusCode()).as("served from the held record").isEqualTo(200);
            assertThat(token(known401, "x").statusCode()).as("an unknown id held as unknown").isEqualTo(401);
            assertThat(token("te\u0000st", "x").statusCode()).as("an id PostgreSQL could not hold").isEqualTo(401);

            HttpResponse<String> never = token("never-seen-" + UUID.randomUUID(), "x");
            assertThat(never.statusCode()).isEqualTo(503);
            assertThat(never.body()).isEqualTo("{\"error_code\":\"store_unavailable\","
                    + "\"desc\":\"The store is unavailable for a moment; retry shortly\"}");
            HttpResponse<String> listing = send(HttpRequest.newBuilder(adminUri("/users/v1/admin/clients"))
                    .header("Authorization", "Bearer " + admin).GET());
            assertThat(listing.statusCode()).isEqualTo(503);
            assertThat(listing.body()).contains("\"error_code\":\"store_unavailable\"");
            HttpResponse<String> ready = send(HttpRequest.newBuilder(uri("/q/health/ready")).GET());
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.body()).contains("\"name\": \"PostgreSQL\"", "\"status\": \"DOWN\"");
        } finally {
            clock.reset();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> send(HttpRequest.newBuilder(uri("/q/health/ready")).GET())
                .statusCode() == 200);
        assertThat(send(HttpRequest.newBuilder(adminUri("/users/v1/admin/clients")).header("Authorization", "Bearer " + admin)
                .GET()).statusCode()).isEqualTo(200);
        assertThat(token("never-seen-" + UUID.randomUUID(), "x").statusCode()).isEqualTo(401);
    }

    private HttpResponse<String> token(String id, String secret) throws Exception {
        return send(HttpRequest.newBuilder(uri(TOKEN_PATH)).header("Authorization", basic(id, secret))
                .header("Content-Type", "application/json")
                .header("X-Forwarded-For", io.outpost.auth.TestClients.ownAddress())
                .POST(HttpRequest.BodyPublishers.ofString(GRANT)));
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.timeout(GIVE_UP).build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) throws Exception {
        return base.toURI().resolve(path);
    }

    /** Client administration answers on its own port (docs/deploy.md, "The admin API"). */
    private static URI adminUri(String path) {
        return URI.create("http://localhost:" + Arc.container().instance(AdminListener.class).get().port() + path);
    }
}
