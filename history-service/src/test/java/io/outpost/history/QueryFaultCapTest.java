package io.outpost.history;

import static io.outpost.history.HistoryFixture.ROLE;
import static io.outpost.history.HistoryFixture.path;
import static io.outpost.history.HistoryFixture.viewer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/** A 422 lists at most 20 faults, then one entry saying how many more it did not list. */
@QuarkusTest
class QueryFaultCapTest {

    /** 7.6 KB of commas in {@code role_ids} are ≈ 7,600 faults; the answer is 21 entries, not ≈ 700 KB. */
    @Test
    void aQueryOfCommasIsASmall422() {
        String commas = ",".repeat(7_600);
        Response answer = viewer().urlEncodingEnabled(false).when()
                .get(path(UUID.randomUUID(), ROLE) + "?role_ids=" + commas);

        answer.then().statusCode(422).body("detail", hasSize(21))
                .body("detail[0].loc", is(List.of("query", "role_ids", 0)))
                .body("detail[19].loc", is(List.of("query", "role_ids", 19)))
                .body("detail[20].loc", is(List.of("query", "role_ids")))
                .body("detail[20].msg", is("Value error, 7,581 more faults not listed"))
                .body("detail[20].type", is("value_error"));
        assertThat(answer.asByteArray().length).isLessThan(4_000);
    }

    /** The same for whole numbers, and for both lists at once: the count covers every fault not listed. */
    @Test
    void bothListsAtOnceAreCountedTogether() {
        viewer().urlEncodingEnabled(false).when()
                .get(path(UUID.randomUUID(), ROLE) + "?legacy_role_ids=" + ",".repeat(99) + "&role_ids=,")
                .then().statusCode(422).body("detail", hasSize(21))
                .body("detail[0].loc", is(List.of("query", "role_ids", 0)))
                .body("detail[2].loc", is(List.of("query", "legacy_role_ids", 0)))
                .body("detail[20].loc", is(List.of("query", "legacy_role_ids")))
                .body("detail[20].msg", is("Value error, 82 more faults not listed"));
    }
}
