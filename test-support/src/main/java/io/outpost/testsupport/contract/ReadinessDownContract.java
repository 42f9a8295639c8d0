package io.outpost.testsupport.contract;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * What every service shows when its PostgreSQL and Kafka cannot be reached: readiness DOWN (503) naming each
 * unreachable backing service, while liveness stays UP so the orchestrator waits rather than restarts. A
 * service's test extends it under {@code @QuarkusTest @TestProfile(UnreachableBackingServicesProfile.class)}.
 */
public abstract class ReadinessDownContract {

    /** The readiness checks that must read DOWN. */
    protected abstract List<String> readinessChecks();

    @Test
    void readinessIsDownWhileBackingServicesAreUnreachable() {
        given().when().get("/q/health/ready").then().statusCode(503).body("status", is("DOWN"));
        for (String check : readinessChecks()) {
            given().when().get("/q/health/ready")
                    .then().body("checks.find { it.name == '" + check + "' }.status", is("DOWN"));
        }
    }

    /**
     * A verifier that has not read the revocation topic since it started is not ready, and its readiness says why
     * (its start-up timeout, shortened by the profile, has passed).
     */
    @Test
    void theRevocationCheckSaysWhyItIsDown() {
        given().when().get("/q/health/ready").then().statusCode(503)
                .body("checks.find { it.name == 'Revocations' }.status", is("DOWN"))
                .body("checks.find { it.name == 'Revocations' }.data.reason", startsWith(
                        "the revocation topic is not read yet: Kafka has not answered for "))
                .body("checks.find { it.name == 'Revocations' }.data.reason", containsString(
                        "(startup-timeout 2 s passed)"));
    }

    @Test
    void livenessStaysUp() {
        given().when().get("/q/health/live").then().statusCode(200).body("status", is("UP"));
    }
}
