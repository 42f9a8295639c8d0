package io.outpost.testsupport.contract;

import static io.outpost.testsupport.PrometheusScrape.gauge;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.is;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.outpost.model.Topics;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.outpost.testsupport.TestKafka;

/**
 * What every service shows once booted against the real PostgreSQL and Kafka: readiness UP with a check per
 * backing service, its own Flyway-migrated schema, OpenAPI and Prometheus metrics, a revocation feed that reads. A
 * service's test extends it under {@code @QuarkusTest}.
 */
public abstract class ReadinessContract {

    /** The readiness checks the service must report UP. */
    protected abstract List<String> readinessChecks();

    /** The PostgreSQL schema the service owns. */
    protected abstract String schema();

    @Test
    void readinessIsUpWithEveryBackingServiceChecked() {
        given().when().get("/q/health/ready")
                .then().statusCode(200)
                .body("status", is("UP"))
                .body("checks.name", hasItems(readinessChecks().toArray(String[]::new)));
        for (String check : readinessChecks()) {
            given().when().get("/q/health/ready")
                    .then().body("checks.find { it.name == '" + check + "' }.status", is("UP"));
        }
    }

    @Test
    void livenessIsUp() {
        given().when().get("/q/health/live").then().statusCode(200).body("status", is("UP"));
    }

    @Test
    void ownSchemaIsMigratedByFlyway() throws SQLException {
        PostgresConnection pg = BackingServices.shared().postgres();
        List<String> versions = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "select version from " + schema() + ".flyway_schema_history where success order by installed_rank")) {
            while (rows.next()) {
                versions.add(rows.getString(1));
            }
        }
        org.junit.jupiter.api.Assertions.assertTrue(versions.contains("1"),
                "schema " + schema() + " should hold migration 1, has " + versions);
    }

    @Test
    void publishesOpenApiDocument() {
        given().when().get("/q/openapi?format=json")
                .then().statusCode(200)
                .body("openapi", containsString("3."));
    }

    @Test
    void publishesPrometheusMetrics() {
        given().when().get("/q/metrics")
                .then().statusCode(200)
                .body(containsString("jvm_memory_used_bytes"));
    }

    /**
     * The shared verifier's revocation feed reads the revocation topic with the service's own Kafka settings (the
     * services' tests connect as their prod {@code KafkaUser}): a record published there is read, so the feed's lag
     * returns to 0. Without {@code Read} on the topic, or without the security settings, it never does.
     */
    @Test
    void theRevocationFeedReadsTheRevocationTopic() {
        String jti = "readiness-contract-" + UUID.randomUUID();
        try (TestKafka kafka = new TestKafka()) {
            kafka.send(Topics.AUTH_TOKEN_REVOCATIONS, "token:" + jti, "{\"type\":\"token\",\"jti\":\"" + jti
                    + "\",\"client_id\":\"readiness-contract\",\"expires_at\":"
                    + Instant.now().plusSeconds(60).getEpochSecond() + ",\"reason\":\"revoked\"}");
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> gauge("outpost_auth_revocation_feed_connected") == 1
                && gauge("outpost_auth_revocation_feed_lag") == 0);
    }

    @Test
    void unknownPathIsA404WithAnErrorBody() {
        given().when().get("/no/such/path")
                .then().statusCode(404)
                .body("error_code", is("not_found"));
    }
}
