package io.outpost.auth.admin;

import static io.outpost.auth.TestClients.adminApi;
import static io.outpost.auth.TestClients.ADMIN;
import static io.outpost.auth.TestClients.ADMIN_SECRET;
import static io.outpost.auth.TestClients.TOKEN_PATH;
import static io.outpost.auth.TestClients.basic;
import static io.outpost.auth.TestClients.fromOwnAddress;
import static io.outpost.auth.TestClients.token;
import static io.outpost.auth.TestClients.tokenRequest;
import static io.outpost.testsupport.PrometheusScrape.gauge;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.outpost.testsupport.MutableClock;
import io.outpost.testsupport.ProcessFreeze;
import io.outpost.testsupport.TestKafka;
import io.outpost.testsupport.TestTokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;

/**
 * Taking tokens back: a client revokes its own (RFC 7009); an administrator revokes all of a client's, disables it
 * or rotates its secret (both secrets working through the grace period); each reaches the revocation and audit
 * topics, and introspection (RFC 7662) tells a resource server at once.
 */
@QuarkusTest
class TokenLifecycleTest {

    static final String CLIENTS = "/users/v1/admin/clients";
    static final String REVOKE = "/users/v2/oauth/revoke";
    static final String INTROSPECT = "/users/v2/oauth/introspect";
    static final String INTROSPECTOR = "test-introspector";
    static final String INTROSPECTOR_SECRET = "test-introspector-secret";

    private static TestKafka kafka;

    @Inject
    MutableClock clock;

    @Inject
    io.vertx.mutiny.sqlclient.Pool pool;

    private String id;
    private String secret;

    @BeforeAll
    static void kafka() {
        kafka = new TestKafka();
    }

    @AfterAll
    static void closeKafka() {
        kafka.close();
    }

    @BeforeEach
    void aFreshClient() {
        id = "life-" + UUID.randomUUID().toString().substring(0, 8);
        secret = admin().contentType(ContentType.JSON).body(Map.of("client_id", id, "permissions",
                List.of("sandbox:config:view"))).post(CLIENTS).then().statusCode(201).extract().path("client_secret");
    }

    @Test
    void aClientRevokesItsOwnTokenAndEveryVerifierRefusesItWithinTwoSeconds() {
        String admin = token(ADMIN, ADMIN_SECRET);
        adminApi().auth().oauth2(admin).get(CLIENTS + "/" + id).then().statusCode(200);
        // the admin revokes its own token through RFC 7009, form-encoded as standard libraries send it
        given().header("Authorization", basic(ADMIN, ADMIN_SECRET)).contentType(ContentType.URLENC)
                .formParam("token", admin).formParam("token_type_hint", "access_token").post(REVOKE)
                .then().statusCode(200).header("Cache-Control", "no-store");
        // this service's own verifier reads the same revocation topic as the others
        await().atMost(Duration.ofSeconds(2)).until(() -> adminApi().auth().oauth2(admin).get(CLIENTS).statusCode() == 403);
        adminApi().auth().oauth2(admin).get(CLIENTS).then().statusCode(403).body("error_code", is("auth_token_unknown"));
        assertThat(introspect(admin).getBoolean("active")).isFalse();
        adminApi().auth().oauth2(token(ADMIN, ADMIN_SECRET)).get(CLIENTS).then().statusCode(200);
        String jti = JsonPath.from(payload(admin)).getString("jti");
        assertThat(kafka.read("auth-token-revocations", "token:" + jti, 1, Duration.ofSeconds(10))).singleElement()
                .satisfies(record -> assertThat(record.value()).contains("\"type\":\"token\"", "\"client_id\":\"" + ADMIN));
    }

    @Test
    void revocationAnswers200ForAnyTokenButRefusesAnotherClientsToken() {
        given().header("Authorization", basic(id, secret)).contentType(ContentType.JSON)
                .body("{\"token\":\"not-a-token\"}").post(REVOKE).then().statusCode(200);
        String other = token(ADMIN, ADMIN_SECRET);
        given().header("Authorization", basic(id, secret)).contentType(ContentType.URLENC).formParam("token", other)
                .post(REVOKE).then().statusCode(400).body("error", is("unauthorized_client"));
        assertThat(introspect(other).getBoolean("active")).isTrue();
        given().header("Authorization", basic(id, "wrong")).contentType(ContentType.URLENC).formParam("token", other)
                .header("X-Forwarded-For", io.outpost.auth.TestClients.ownAddress())
                .post(REVOKE).then().statusCode(401).body("error", is("invalid_client"));
        given().header("Authorization", basic(id, secret)).contentType(ContentType.JSON).body("{}").post(REVOKE)
                .then().statusCode(422).body("detail[0].loc", equalTo(List.of("body", "token")));
    }

    @Test
    void introspectionDescribesAnActiveTokenToAPermittedCallerOnly() {
        String token = token(id, secret);
        JsonPath active = introspect(token);
        assertThat(active.getBoolean("active")).isTrue();
        assertThat(active.getString("client_id")).isEqualTo(id);
        assertThat(active.getString("sub")).isEqualTo(id);
        assertThat(active.getString("scope")).isEqualTo("sandbox:config:view");
        assertThat(active.getList("permissions")).containsExactly("sandbox:config:view");
        assertThat(active.getString("token_type")).isEqualTo("Bearer");
        assertThat(active.getLong("exp") - active.getLong("iat")).isEqualTo(3600);
        String[] parts = token.split("\\.");
        assertThat(introspect(parts[0] + "." + parts[1] + ".AAAA").getMap("$")).isEqualTo(Map.of("active", false));
        // the same signature bytes, its last character's unused bits set: another spelling, not the token issued
        String respelled = parts[0] + "." + parts[1] + "." + TestTokens.nonCanonical(parts[2]);
        assertThat(introspect(respelled).getMap("$")).isEqualTo(Map.of("active", false));
        assertThat(introspect("garbage").getMap("$")).isEqualTo(Map.of("active", false));
        // the caller needs auth:tokens:introspect, which no wildcard grants
        for (String[] caller : new String[][] { { id, secret }, { "test-wildcard", "test-wildcard-secret" } }) {
            given().header("Authorization", basic(caller[0], caller[1])).contentType(ContentType.URLENC)
                    .formParam("token", token).post(INTROSPECT).then().statusCode(403)
                    .body("error", is("insufficient_scope")).body("error_code", is("insufficient_permissions"));
        }
    }

    @Test
    void introspectionReadsTwoRecordsInOneRequestWhileOneIsRefreshedInTheBackground() {
        String token = token(id, secret);
        introspect(token);
        // the token's client is read again (a change), the introspector's record is due for a background refresh
        admin().contentType(ContentType.JSON).body("{\"permissions\":[\"sandbox:config:view\"]}")
                .put(CLIENTS + "/" + id + "/permissions").then().statusCode(200);
        try {
            clock.advance(Duration.ofMillis(1500)); // past client-cache-ttl (1 s), within twice it
            for (int i = 0; i < 5; i++) {
                assertThat(introspect(token).getBoolean("active")).isTrue();
                admin().contentType(ContentType.JSON).body("{\"permissions\":[\"sandbox:config:view\"]}")
                        .put(CLIENTS + "/" + id + "/permissions").then().statusCode(200);
                clock.advance(Duration.ofMillis(1500));
            }
        } finally {
            clock.reset();
        }
    }

    @Test
    void wildcardsNeverGrantClientAdministration() {
        String wildcard = token("test-wildcard", "test-wildcard-secret");
        adminApi().auth().oauth2(wildcard).get(CLIENTS).then().statusCode(403)
                .body("error_code", is("insufficient_permissions"))
                .header("WWW-Authenticate", org.hamcrest.Matchers.startsWith("Bearer realm=\"outpost\", error=\"insufficient_scope\""));
    }

    /**
     * Another replica's change reaches this one through the background read of a record past client-cache-ttl: the
     * clock stays within twice the ttl, where the record held is still served, so only that read can tell.
     */
    @Test
    void aChangeMadeThroughAnotherReplicaIsReadInTheBackgroundWithinTwiceTheCacheTime() {
        tokenRequest(id, secret).post(TOKEN_PATH).then().statusCode(200); // the secret's slow check, once
        try {
            // past twice client-cache-ttl: the record is read again before the answer, so its age is known from here
            clock.advance(Duration.ofMillis(2500));
            tokenRequest(id, secret).post(TOKEN_PATH).then().statusCode(200);
            // disabled straight in PostgreSQL, as another replica's admin call does: this replica is not told
            pool.preparedQuery("UPDATE auth.client SET enabled = false WHERE client_id = $1")
                    .execute(io.vertx.mutiny.sqlclient.Tuple.of(id)).await().atMost(Duration.ofSeconds(10));
            clock.advance(Duration.ofMillis(1200)); // past client-cache-ttl (1 s), within twice it
            tokenRequest(id, secret).post(TOKEN_PATH).then().statusCode(200); // served as held; a read starts
            // within 0.7 s of real time the record's age stays under 2 s, where no request reads it in the foreground
            await().atMost(Duration.ofMillis(700)).pollInterval(Duration.ofMillis(50))
                    .until(() -> tokenRequest(id, secret).post(TOKEN_PATH).statusCode() == 401);
        } finally {
            clock.reset();
        }
    }

    @Test
    void disablingAClientRevokesItsTokensAtOnceAndIsAudited() {
        String before = token(id, secret);
        admin().post(CLIENTS + "/" + id + "/disable").then().statusCode(200)
                .body("enabled", is(false)).body("tokens_revoked_before", org.hamcrest.Matchers.notNullValue());
        assertThat(introspect(before).getBoolean("active")).isFalse();
        tokenRequest(id, secret).post(TOKEN_PATH).then().statusCode(401);
        admin().post(CLIENTS + "/" + id + "/enable").then().statusCode(200);
        assertThat(introspect(token(id, secret)).getBoolean("active")).as("a token issued after").isTrue();
        assertThat(introspect(before).getBoolean("active")).as("still revoked").isFalse();

        TestKafka.Received revocation = kafka.read("auth-token-revocations", "client:" + id, 1, Duration.ofSeconds(10))
                .get(0);
        long cutoff = JsonPath.from(revocation.value()).getLong("issued_before");
        assertThat(cutoff).isGreaterThan(JsonPath.from(payload(before)).getLong("iat"));
        assertThat(revocation.value()).contains("\"reason\":\"disabled\"");
        List<String> actions = kafka.read("auth-audit", id, 3, Duration.ofSeconds(10)).stream()
                .map(record -> JsonPath.from(record.value()).getString("action")).toList();
        assertThat(actions).containsExactly("client.created", "client.disabled", "client.enabled");
        assertThat(kafka.read("auth-audit", id, 1, Duration.ofSeconds(10)).get(0).value())
                .contains("\"actor\":\"" + ADMIN + "\"").doesNotContain(secret);
    }

    @Test
    void aRevocationMadeWhileKafkaIsAwayWaitsInTheOutboxAndIsPublishedWhenItReturns() throws Exception {
        String before = token(id, secret);
        try (ProcessFreeze frozen = ProcessFreeze.kafka()) {
            admin().post(CLIENTS + "/" + id + "/revoke-tokens").then().statusCode(200); // does not wait for Kafka
            assertThat(introspect(before).getBoolean("active")).as("the registry knows at once").isFalse();
            assertThat(outboxRows("client:" + id)).isEqualTo(1);
            // what the prod overlay's alerts watch (OutpostRevocationsWaiting, OutpostRevocationFeedDown, …Behind)
            await().atMost(Duration.ofSeconds(30)).until(() -> gauge("outpost_auth_outbox_pending") >= 1
                    && gauge("outpost_auth_revocation_feed_connected") == 0);
            double waited = gauge("outpost_auth_outbox_oldest_age_seconds");
            assertThat(waited).isPositive();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> gauge("outpost_auth_outbox_oldest_age_seconds") > waited);
        }
        // a send that timed out while the broker was frozen may still reach it when it resumes, and the relay sends
        // again: a copy is harmless (the topic is read by key), a loss would not be
        List<TestKafka.Received> published = kafka.read("auth-token-revocations", "client:" + id, 1,
                Duration.ofSeconds(30));
        assertThat(published).isNotEmpty().extracting(TestKafka.Received::value)
                .containsOnly(published.get(0).value());
        await().atMost(Duration.ofSeconds(30)).until(() -> outboxRows("client:" + id) == 0);
        await().atMost(Duration.ofSeconds(30)).until(() -> gauge("outpost_auth_outbox_pending") == 0
                && gauge("outpost_auth_outbox_oldest_age_seconds") == 0
                && gauge("outpost_auth_revocation_feed_connected") == 1
                && gauge("outpost_auth_revocation_feed_lag") == 0);
    }

    private static long outboxRows(String key) throws java.sql.SQLException {
        io.outpost.testsupport.PostgresConnection pg = io.outpost.testsupport.BackingServices.shared().postgres();
        try (java.sql.Connection connection = java.sql.DriverManager.getConnection(pg.jdbcUrl(), pg.username(),
                pg.password());
                java.sql.PreparedStatement query = connection.prepareStatement(
                        "select count(*) from auth.outbox where record_key = ?")) {
            query.setString(1, key);
            try (java.sql.ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    @Test
    void revokingAClientsTokensTakesBackEarlierOnesOnly() {
        String before = token(id, secret);
        admin().post(CLIENTS + "/" + id + "/revoke-tokens").then().statusCode(200);
        assertThat(introspect(before).getBoolean("active")).isFalse();
        String after = token(id, secret);
        assertThat(introspect(after).getBoolean("active")).isTrue();
        admin().post(CLIENTS + "/nobody/revoke-tokens").then().statusCode(404);
    }

    @Test
    void aRotatedSecretKeepsWorkingThroughItsGracePeriodThenStops() {
        String before = token(id, secret);
        JsonPath rotated = admin().post(CLIENTS + "/" + id + "/secret").then().statusCode(200)
                .header("Cache-Control", "no-store").extract().jsonPath();
        String fresh = rotated.getString("client_secret");
        Instant graceEnd = Instant.parse(rotated.getString("previous_secret_expires_at"));
        assertThat(Duration.between(Instant.now(), graceEnd)).isBetween(Duration.ofMinutes(4), Duration.ofMinutes(5));
        assertThat(introspect(before).getBoolean("active")).as("tokens issued before are revoked").isFalse();
        tokenRequest(id, secret).post(TOKEN_PATH).then().statusCode(200);
        tokenRequest(id, fresh).post(TOKEN_PATH).then().statusCode(200);
        try {
            clock.advance(Duration.ofMinutes(5).plusSeconds(1));
            tokenRequest(id, secret).post(TOKEN_PATH).then().statusCode(401);
            tokenRequest(id, fresh).post(TOKEN_PATH).then().statusCode(200);
        } finally {
            clock.reset();
        }
        // a grace period per call: an hour, or none
        String third = admin().queryParam("grace_seconds", 3600).post(CLIENTS + "/" + id + "/secret").then()
                .statusCode(200).extract().path("client_secret");
        tokenRequest(id, fresh).post(TOKEN_PATH).then().statusCode(200);
        admin().queryParam("grace_seconds", 0).post(CLIENTS + "/" + id + "/secret").then().statusCode(200);
        tokenRequest(id, third).post(TOKEN_PATH).then().statusCode(401);
        admin().queryParam("grace_seconds", -1).post(CLIENTS + "/" + id + "/secret").then().statusCode(422)
                .body("detail[0].loc", equalTo(List.of("query", "grace_seconds")));
    }

    static JsonPath introspect(String token) {
        return fromOwnAddress().header("Authorization", basic(INTROSPECTOR, INTROSPECTOR_SECRET))
                .contentType(ContentType.URLENC).formParam("token", token).post(INTROSPECT)
                .then().statusCode(200).header("Cache-Control", "no-store").extract().jsonPath();
    }

    private static RequestSpecification admin() {
        return adminApi().auth().oauth2(token(ADMIN, ADMIN_SECRET));
    }

    private static String payload(String token) {
        return new String(java.util.Base64.getUrlDecoder().decode(token.split("\\.")[1]));
    }
}
