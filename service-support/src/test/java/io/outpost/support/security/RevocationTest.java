package io.outpost.support.security;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.model.Permissions;
import io.outpost.model.Topics;
import io.outpost.support.security.revocation.Revocation;
import io.outpost.testsupport.ProcessFreeze;
import io.outpost.testsupport.TestKafka;
import io.outpost.testsupport.TestTokens;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The shared verifier reads the revocation topic (as auth-service publishes it, through the real Kafka broker)
 * and refuses revoked tokens with {@code auth_token_unknown} within 2 s; while Kafka is away it fails open.
 */
@QuarkusTest
class RevocationTest {

    private static final TestTokens TOKENS = TestTokens.shared();
    private static final String TOPIC = Topics.AUTH_TOKEN_REVOCATIONS;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WITHIN = Duration.ofSeconds(2);
    private static TestKafka kafka;
    private static boolean feedReading;

    @BeforeAll
    static void kafka() {
        kafka = new TestKafka();
    }

    /** The topic exists and the feed reads it before the first measured revocation (auth-service creates it). */
    @BeforeEach
    void feedIsReading() {
        if (feedReading) {
            return;
        }
        publish(Revocation.token("warm-up-" + UUID.randomUUID(), "nobody", Instant.now().getEpochSecond(), "revoked"));
        String warm = sign(TOKENS.token().client("warm-up"), "warm-" + UUID.randomUUID());
        publish(Revocation.token(jtiOf(warm), "warm-up", Instant.now().plusSeconds(600).getEpochSecond(), "revoked"));
        await().atMost(Duration.ofSeconds(30)).until(() -> status(warm) == 403);
        feedReading = true;
    }

    @AfterAll
    static void close() {
        kafka.close();
    }

    @Test
    void aRevokedTokenIsRefusedWithinTwoSecondsAndOtherTokensAreNot() {
        String client = "client-" + UUID.randomUUID();
        String revoked = sign(TOKENS.token().client(client), "jti-" + UUID.randomUUID());
        String other = sign(TOKENS.token().client(client), "jti-" + UUID.randomUUID());
        given().header("Authorization", "Bearer " + revoked).get("/guarded/sandbox").then().statusCode(200);
        publish(Revocation.token(jtiOf(revoked), client, Instant.now().plusSeconds(3600).getEpochSecond(), "revoked"));
        await().atMost(WITHIN).until(() -> status(revoked) == 403);
        given().header("Authorization", "Bearer " + revoked).get("/guarded/sandbox").then().statusCode(403)
                .body("auth_success", is(false)).body("error_code", is("auth_token_unknown"))
                .header("WWW-Authenticate", BearerTokenTest.challenge("auth_token_unknown"));
        given().header("Authorization", "Bearer " + other).get("/guarded/sandbox").then().statusCode(200);
    }

    @Test
    void aClientRevocationRefusesItsEarlierTokensOnly() {
        String client = "client-" + UUID.randomUUID();
        Instant now = Instant.now();
        String earlier = sign(TOKENS.token().client(client).issuedAt(now.minusSeconds(30)), null);
        String later = sign(TOKENS.token().client(client).issuedAt(now.plusSeconds(1)), null);
        String otherClient = sign(TOKENS.token().client("other-" + client).issuedAt(now.minusSeconds(30)), null);
        given().header("Authorization", "Bearer " + earlier).get("/guarded/sandbox").then().statusCode(200);
        publish(Revocation.client(client, now.getEpochSecond() + 1, now.plusSeconds(3700).getEpochSecond(), "disabled"));
        await().atMost(WITHIN).until(() -> status(earlier) == 403);
        given().header("Authorization", "Bearer " + later).get("/guarded/sandbox").then().statusCode(200);
        given().header("Authorization", "Bearer " + otherClient).get("/guarded/sandbox").then().statusCode(200);
    }

    @Test
    void whileKafkaIsAwayTokensAreAcceptedAndKnownRevocationsStillApply() {
        String client = "client-" + UUID.randomUUID();
        String revoked = sign(TOKENS.token().client(client), "jti-" + UUID.randomUUID());
        publish(Revocation.token(jtiOf(revoked), client, Instant.now().plusSeconds(3600).getEpochSecond(), "revoked"));
        await().atMost(WITHIN).until(() -> status(revoked) == 403);
        String fresh = sign(TOKENS.token().client(client), "jti-" + UUID.randomUUID());
        try (ProcessFreeze frozen = ProcessFreeze.kafka()) {
            // fail open: a token nobody revoked is accepted (first verification included) ...
            given().header("Authorization", "Bearer " + fresh).get("/guarded/sandbox").then().statusCode(200);
            // ... and what was already revoked stays refused
            given().header("Authorization", "Bearer " + revoked).get("/guarded/sandbox").then().statusCode(403)
                    .body("error_code", is("auth_token_unknown"));
        }
        publish(Revocation.token(jtiOf(fresh), client, Instant.now().plusSeconds(3600).getEpochSecond(), "revoked"));
        await().atMost(Duration.ofSeconds(10)).until(() -> status(fresh) == 403);
    }

    @Test
    void unreadableRecordsAreIgnored() {
        kafka.send(TOPIC, "token:x", "{not json");
        kafka.send(TOPIC, "client:y", "{\"type\":\"client\",\"client_id\":\"y\"}");
        String token = sign(TOKENS.token().client("y").issuedAt(Instant.now().minusSeconds(5)), null);
        String marker = sign(TOKENS.token().client("marker"), "jti-" + UUID.randomUUID());
        publish(Revocation.token(jtiOf(marker), "marker", Instant.now().plusSeconds(600).getEpochSecond(), "revoked"));
        await().atMost(WITHIN).until(() -> status(marker) == 403); // the records before it were read
        given().header("Authorization", "Bearer " + token).get("/guarded/sandbox").then().statusCode(200);
    }

    private static String sign(TestTokens.Token token, String jti) {
        if (jti != null) {
            token.jwtId(jti);
        }
        return token.permissions(Permissions.SANDBOX_CONFIG_VIEW).sign();
    }

    private static String jtiOf(String token) {
        String payload = new String(java.util.Base64.getUrlDecoder().decode(token.split("\\.")[1]));
        return payload.replaceAll(".*\"jti\":\"([^\"]+)\".*", "$1");
    }

    private static int status(String token) {
        return given().header("Authorization", "Bearer " + token).get("/guarded/sandbox").statusCode();
    }

    private static void publish(Revocation revocation) {
        try {
            kafka.send(TOPIC, revocation.key(), JSON.writeValueAsString(revocation));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
