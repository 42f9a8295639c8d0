package io.outpost.auth.admin;

import static io.outpost.auth.TestClients.ADMIN;
import static io.outpost.auth.TestClients.ADMIN_SECRET;
import static io.outpost.auth.TestClients.adminApi;
import static io.outpost.auth.TestClients.basic;
import static io.outpost.auth.TestClients.fromOwnAddress;
import static io.outpost.auth.TestClients.token;
import static io.outpost.auth.admin.TokenLifecycleTest.CLIENTS;
import static io.outpost.auth.admin.TokenLifecycleTest.REVOKE;
import static io.outpost.auth.admin.TokenLifecycleTest.introspect;
import static io.outpost.testsupport.PrometheusScrape.gauge;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.outpost.testsupport.TestKafka;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;

/**
 * Revocations cannot be turned into memory exhaustion nor into forgetting (DESIGN §4a): a client may have at most
 * {@code revocations.max-tokens-per-client} (20) single-token revocations live, all clients together
 * {@code revocations.max-tokens} (50,000); past either, a revocation is folded into the client's cut-off, which
 * revokes the token and every token the client was issued up to it — one entry on every verifier, however many
 * revocations. Nothing revoked ever verifies again.
 */
@QuarkusTest
class RevocationBoundsTest {

    private static final int PER_CLIENT = 20;
    private static final int IN_ALL = 50_000;
    private static final String REVOCATIONS = "auth-token-revocations";
    private static TestKafka kafka;

    @BeforeAll
    static void kafka() {
        kafka = new TestKafka();
    }

    @AfterAll
    static void closeKafka() {
        kafka.close();
    }

    @Test
    void pastItsBoundAClientsRevocationRevokesEveryTokenItWasIssuedUpToTheRevokedOne() throws Exception {
        String[] client = newClient();
        List<String> tokens = new ArrayList<>();
        for (int i = 0; i < PER_CLIENT + 2; i++) {
            tokens.add(token(client[0], client[1]));
        }
        double knownTokens = gauge("outpost_auth_revocations_known", "kind", "token");
        double knownClients = gauge("outpost_auth_revocations_known", "kind", "client");
        for (int i = 0; i < PER_CLIENT; i++) {
            revoke(client, tokens.get(i));
        }
        String last = tokens.get(PER_CLIENT + 1);
        revoke(client, last); // the 21st: folded into the client's cut-off

        await().atMost(Duration.ofSeconds(2)).until(() -> !introspect(tokens.get(PER_CLIENT - 1)).getBoolean("active"));
        for (int i = 0; i <= PER_CLIENT + 1; i++) {
            assertThat(introspect(tokens.get(i)).getBoolean("active")).as("token %d", i).isFalse();
        }
        assertThat(kafka.read(REVOCATIONS, "client:" + client[0], 1, Duration.ofSeconds(10))).singleElement()
                .satisfies(record -> assertThat(record.value()).contains("\"reason\":\"revoked\""));
        assertThat(kafka.read(REVOCATIONS, "token:" + jti(last), 1, Duration.ofSeconds(2))).isEmpty();
        assertThat(liveRevocations(client[0])).isEqualTo(PER_CLIENT);
        // every verifier (this service's own, too) keeps 20 token entries and one client entry for all of it
        await().atMost(Duration.ofSeconds(5)).until(() -> gauge("outpost_auth_revocations_known", "kind", "client")
                == knownClients + 1);
        assertThat(gauge("outpost_auth_revocations_known", "kind", "token")).isEqualTo(knownTokens + PER_CLIENT);
        // the client goes on: a token issued now is good
        assertThat(introspect(token(client[0], client[1])).getBoolean("active")).isTrue();
    }

    @Test
    void pastTheBoundOfAllClientsARevocationIsFoldedToo() throws Exception {
        String filler = "filler-" + UUID.randomUUID();
        fill(filler, IN_ALL);
        try {
            String[] client = newClient();
            String earlier = token(client[0], client[1]);
            String revoked = token(client[0], client[1]);
            revoke(client, revoked);
            assertThat(introspect(revoked).getBoolean("active")).isFalse();
            assertThat(introspect(earlier).getBoolean("active")).as("folded: issued before the revoked one").isFalse();
            assertThat(kafka.read(REVOCATIONS, "client:" + client[0], 1, Duration.ofSeconds(10))).hasSize(1);
            assertThat(liveRevocations(client[0])).isZero();
        } finally {
            sql("DELETE FROM auth.revoked_token WHERE client_id = ?", filler);
        }
    }

    @Test
    void underTheBoundsATokenIsRevokedByItsIdAlone() throws Exception {
        String[] client = newClient();
        String kept = token(client[0], client[1]);
        String revoked = token(client[0], client[1]);
        revoke(client, revoked);
        // by its id, a revocation reaches introspection as every verifier: through the revocation feed
        await().atMost(Duration.ofSeconds(2)).until(() -> !introspect(revoked).getBoolean("active"));
        assertThat(introspect(kept).getBoolean("active")).isTrue();
        assertThat(kafka.read(REVOCATIONS, "token:" + jti(revoked), 1, Duration.ofSeconds(10))).hasSize(1);
        assertThat(liveRevocations(client[0])).isOne();
    }

    /** A new client's id and secret. */
    static String[] newClient() {
        String id = "bounded-" + UUID.randomUUID().toString().substring(0, 8);
        String secret = adminApi().auth().oauth2(token(ADMIN, ADMIN_SECRET)).contentType(ContentType.JSON)
                .body(Map.of("client_id", id, "permissions", List.of("sandbox:config:view"))).post(CLIENTS)
                .then().statusCode(201).extract().path("client_secret");
        return new String[] { id, secret };
    }

    static void revoke(String[] client, String token) {
        fromOwnAddress().header("Authorization", basic(client[0], client[1])).contentType(ContentType.URLENC)
                .formParam("token", token).post(REVOKE).then().statusCode(200);
    }

    private static String jti(String token) {
        return JsonPath.from(new String(java.util.Base64.getUrlDecoder().decode(token.split("\\.")[1]))).getString("jti");
    }

    static long liveRevocations(String clientId) throws SQLException {
        try (Connection connection = connect(); PreparedStatement query = connection.prepareStatement(
                "SELECT count(*) FROM auth.revoked_token WHERE client_id = ?")) {
            query.setString(1, clientId);
            try (var rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    /** {@code count} live revocations of another client, as if it had revoked that many tokens this hour. */
    private static void fill(String clientId, int count) throws SQLException {
        try (Connection connection = connect(); PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO auth.revoked_token (jti, client_id, expires_at) SELECT ? || n, ?, ? "
                        + "FROM generate_series(1, ?) AS n")) {
            insert.setString(1, clientId + "-");
            insert.setString(2, clientId);
            insert.setTimestamp(3, Timestamp.from(Instant.now().plusSeconds(3600)));
            insert.setInt(4, count);
            insert.executeUpdate();
        }
    }

    private static void sql(String statement, String value) throws SQLException {
        try (Connection connection = connect(); PreparedStatement update = connection.prepareStatement(statement)) {
            update.setString(1, value);
            update.executeUpdate();
        }
    }

    static Connection connect() throws SQLException {
        PostgresConnection pg = BackingServices.shared().postgres();
        return DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
    }
}
