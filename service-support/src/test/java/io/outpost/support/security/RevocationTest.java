package io.outpost.support.security;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;

import org.apache.kafka.clients.producer.RecordMetadata;
import org.jboss.logmanager.ExtLogRecord;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.model.Permissions;
import io.outpost.model.Topics;
import io.outpost.support.security.revocation.Revocation;
import io.outpost.support.security.revocation.RevocationFeed;
import io.outpost.testsupport.ProcessFreeze;
import io.outpost.testsupport.RawBytes;
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

    /**
     * A record that is not one auth-service writes is not applied at all, however much of it a lenient reader would
     * read, and is logged with its position and why; the feed reads on, and the good revocation behind them applies.
     * Each record names a token of its own, which stays accepted. The first three were applied before: a byte that
     * is not UTF-8 was read as U+FFFD (so a token whose {@code jti} holds U+FFFD was refused), and a key holding
     * U+0000 was ignored with the rest of the record applied.
     */
    @Test
    void aRecordThatIsNotOneAuthServiceWritesIsNotAppliedInPartAndTheFeedReadsOn() {
        String id = UUID.randomUUID().toString();
        long expires = Instant.now().plusSeconds(3600).getEpochSecond();
        String client = "client-" + id;
        String template = "{\"type\":\"token\",\"jti\":\"%s\",\"client_id\":\"" + client + "\",\"expires_at\":"
                + expires + ",\"reason\":\"revoked\"%s}";
        String ff = "ff-" + id;
        String overlong = "overlong-" + id;
        String nulKey = "nul-key-" + id;
        String twice = "twice-" + id;
        String utf16 = "utf16-" + id;
        String noExpiry = "no-expiry-" + id;
        String wrongType = "wrong-type-" + id;
        // FF read leniently is U+FFFD; C1 81, an overlong "A", is two U+FFFD to the JDK's lenient decoder
        String replaced = sign(TOKENS.token().client(client), ff + "\uFFFD");
        String replacedTwice = sign(TOKENS.token().client(client), overlong + "\uFFFD\uFFFD");
        String withNulKey = sign(TOKENS.token().client(client), nulKey);
        String givenTwice = sign(TOKENS.token().client(client), twice);
        String inUtf16 = sign(TOKENS.token().client(client), utf16);
        String withoutExpiry = sign(TOKENS.token().client(client), noExpiry);
        String ofWrongType = sign(TOKENS.token().client(client), wrongType);
        List<String> tokens = List.of(replaced, replacedTwice, withNulKey, givenTwice, inUtf16, withoutExpiry,
                ofWrongType);
        assertThat(tokens.stream().map(RevocationTest::status).toList()).containsOnly(200);
        try (FeedLog log = new FeedLog()) {
            List<RecordMetadata> sent = new ArrayList<>();
            sent.add(kafka.sendRaw(TOPIC, bytes("token:" + ff),
                    RawBytes.withRaw(String.format(template, ff + "#", ""), "#", 0xFF)));
            sent.add(kafka.sendRaw(TOPIC, bytes("token:" + overlong),
                    RawBytes.withRaw(String.format(template, overlong + "#", ""), "#", 0xC1, 0x81)));
            sent.add(kafka.sendRaw(TOPIC, bytes("token:" + nulKey),
                    bytes(String.format(template, nulKey, ",\"\\u0000\":1"))));
            sent.add(kafka.sendRaw(TOPIC, bytes("token:" + twice),
                    bytes(String.format(template, twice, ",\"jti\":\"" + twice + "\""))));
            sent.add(kafka.sendRaw(TOPIC, bytes("token:" + utf16),
                    String.format(template, utf16, "").getBytes(StandardCharsets.UTF_16LE)));
            sent.add(kafka.sendRaw(TOPIC, bytes("token:" + noExpiry), bytes(String.format(template, noExpiry, "")
                    .replace(",\"expires_at\":" + expires, ""))));
            sent.add(kafka.sendRaw(TOPIC, bytes("token:" + wrongType), bytes(String.format(template, wrongType, "")
                    .replace("\"expires_at\":" + expires, "\"expires_at\":" + expires + ".5"))));

            String marker = sign(TOKENS.token().client("marker"), "jti-" + UUID.randomUUID());
            publish(Revocation.token(jtiOf(marker), "marker", Instant.now().plusSeconds(600).getEpochSecond(), "revoked"));
            await().atMost(WITHIN).until(() -> status(marker) == 403); // the records before it were read

            assertThat(tokens.stream().map(RevocationTest::status).toList()).as("each record's token, in order")
                    .containsOnly(200);
            List<String> why = List.of("value: JSON decode error, invalid UTF-8 [json_invalid]",
                    "value: JSON decode error, invalid UTF-8 [json_invalid]",
                    "value.\uFFFD.[key]: String should not contain U+0000 or an unpaired surrogate (U+D800..U+DFFF) "
                            + "[string_pattern_mismatch]",
                    "value: JSON decode error, a key is given twice in one object [json_invalid]",
                    "value: JSON decode error, invalid UTF-8 [json_invalid]",
                    "value: not a revocation (type token with a jti, or client with a client_id and issued_before; "
                            + "expires_at)",
                    "value.expires_at: Input should be a valid integer [json_invalid]");
            log.awaitIgnored(sent, why);
            assertThat(tokens.stream().map(RevocationTest::status).toList()).as("once every record is read")
                    .containsOnly(200);
        }
    }

    /**
     * auth-service keys each record by what it revokes ({@code token:<jti>}, {@code client:<client_id>}): a record
     * under another key — another token's, a client's, the bare jti, bytes that are not UTF-8 — is logged with its
     * position and not applied, as the unreadable ones are; the feed reads on, and the record behind them, keyed as
     * auth-service keys it, applies. Each was applied before.
     */
    @Test
    void aRecordUnderAnotherKeyThanItsValuesIsNotApplied() {
        String id = UUID.randomUUID().toString();
        long expires = Instant.now().plusSeconds(3600).getEpochSecond();
        String client = "client-" + id;
        List<String> jtis = List.of("other-token-" + id, "client-key-" + id, "bare-" + id, "ff-" + id);
        List<String> tokens = new ArrayList<>();
        jtis.forEach(jti -> tokens.add(sign(TOKENS.token().client(client), jti)));
        String cutOff = "cut-off-" + id;
        String earlier = sign(TOKENS.token().client(cutOff).issuedAt(Instant.now().minusSeconds(30)), null);
        tokens.add(earlier);
        assertThat(tokens.stream().map(RevocationTest::status).toList()).containsOnly(200);
        try (FeedLog log = new FeedLog()) {
            List<RecordMetadata> sent = new ArrayList<>();
            List<byte[]> keys = List.of(bytes("token:another-" + id), bytes("client:" + client), bytes(jtis.get(2)),
                    RawBytes.withRaw("token:" + jtis.get(3) + "#", "#", 0xFF));
            for (int i = 0; i < keys.size(); i++) {
                sent.add(kafka.sendRaw(TOPIC, keys.get(i), bytes(json(Revocation.token(jtis.get(i), client, expires,
                        "revoked")))));
            }
            sent.add(kafka.sendRaw(TOPIC, bytes("token:" + cutOff), bytes(json(Revocation.client(cutOff,
                    Instant.now().getEpochSecond() + 1, expires, "disabled")))));

            String marker = sign(TOKENS.token().client("marker"), "jti-" + UUID.randomUUID());
            publish(Revocation.token(jtiOf(marker), "marker", Instant.now().plusSeconds(600).getEpochSecond(), "revoked"));
            await().atMost(WITHIN).until(() -> status(marker) == 403); // the records before it were read

            assertThat(tokens.stream().map(RevocationTest::status).toList()).as("each record's token, in order")
                    .containsOnly(200);
            log.awaitIgnored(sent, java.util.Collections.nCopies(sent.size(),
                    "key: not the value's own (token:<jti>, or client:<client_id>)"));
            assertThat(tokens.stream().map(RevocationTest::status).toList()).as("once every record is read")
                    .containsOnly(200);
        }
    }

    /** The feed's log lines while open. */
    private static final class FeedLog extends Handler implements AutoCloseable {

        private final List<String> logged = new CopyOnWriteArrayList<>();
        private final java.util.logging.Logger feedLog =
                java.util.logging.Logger.getLogger(RevocationFeed.class.getName());

        FeedLog() {
            feedLog.addHandler(this);
        }

        @Override
        public void publish(LogRecord record) {
            logged.add(record instanceof ExtLogRecord ext ? ext.getFormattedMessage() : record.getMessage());
        }

        /** Waits until each of {@code sent} is logged as ignored, with its reason in {@code why}. */
        void awaitIgnored(List<RecordMetadata> sent, List<String> why) {
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < sent.size(); i++) {
                RecordMetadata at = sent.get(i);
                expected.add("revocation feed: ignored an unreadable record at " + TOPIC + "-" + at.partition() + "@"
                        + at.offset() + ": " + why.get(i));
            }
            // the marker's partition may be read before the others: each record is logged once it is read
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(logged).containsAll(expected));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            feedLog.removeHandler(this);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
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
        kafka.send(TOPIC, revocation.key(), json(revocation));
    }

    private static String json(Revocation revocation) {
        try {
            return JSON.writeValueAsString(revocation);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
