package io.outpost.notification;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import io.outpost.model.error.ErrorType;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * The dead-letter counters exist at zero for every reason from the start (docs/operations.md, "Dead letters"), so
 * the first letter of a reason is an increase like any other to the alert OutpostDeadLettersGrowing. Not the default
 * profile's application: the tests of this one that run before it ({@link SmallSettingsProfile}) send no letter.
 */
@QuarkusTest
@TestProfile(SmallSettingsProfile.class)
class DeadLetterMetricsTest {

    @Test
    void everyDeadLetterReasonIsPublishedAtZeroBeforeAnyLetter() {
        String metrics = given().when().get("/q/metrics").then().statusCode(200).extract().asString();
        List<String> reasons = Stream.concat(Arrays.stream(ErrorType.values()).map(ErrorType::code),
                Stream.of("store_refused")).toList();
        assertThat(reasons).hasSize(16);
        for (String reason : reasons) {
            assertThat(metrics).as("dead letters of reason %s", reason).containsPattern(
                    "(?m)^outpost_ingest_records_dead_lettered_total\\{(?=[^}]*reason=\"" + reason + "\")"
                            + "(?=[^}]*topic=\"player-notifications\")[^}]*} 0\\.0$");
        }
        // the alert tells a young pod's first letters (before its first scrape) by its uptime
        assertThat(metrics).containsPattern("(?m)^process_uptime_seconds(\\{[^}]*})? [0-9.E]+$");
    }
}
