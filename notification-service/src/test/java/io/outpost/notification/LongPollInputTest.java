package io.outpost.notification;

import static io.outpost.notification.Fixture.reader;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.outpost.notification.store.NotificationStore;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/** Spec §4.2 / §8 bounds of the long poll, each at and past its limit (DESIGN §5: 422, loc ["query", name]). */
@QuarkusTest
class LongPollInputTest {

    @Inject
    NotificationStore store;

    private UUID player;

    @BeforeEach
    void twoNotifications() {
        player = UUID.randomUUID();
        Fixture.store(store, player, "i", 2);
    }

    private ValidatableResponse get(String query) {
        return given().header("Authorization", "Bearer " + reader(player)).when().get(Fixture.LP + "?" + query).then();
    }

    @ParameterizedTest
    @CsvSource({ "max_page_size=1, 1", "max_page_size=100, 2", "deadline=0, 2", "deadline=900, 2",
            "offset_reset_strategy=latest&deadline=0, 0", "offset_reset_strategy=earliest, 2", "exclude_before=, 0" })
    void acceptsEveryValueWithinTheLimits(String query, int expected) {
        String strategy = query.contains("offset_reset_strategy") || query.contains("exclude_before") ? ""
                : "&offset_reset_strategy=earliest";
        get(query + strategy + (query.contains("deadline") ? "" : "&deadline=0"))
                .statusCode(200).body("notifications", hasSize(expected));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "max_page_size=0   | max_page_size | Input should be greater than or equal to 1 | greater_than_equal",
            "max_page_size=101 | max_page_size | Input should be less than or equal to 100  | less_than_equal",
            "max_page_size=ten | max_page_size | Input should be a valid integer            | int_parsing",
            "max_page_size=    | max_page_size | Input should be a valid integer            | int_parsing",
            "deadline=-1       | deadline      | Input should be greater than or equal to 0 | greater_than_equal",
            "deadline=901      | deadline      | Input should be less than or equal to 900  | less_than_equal",
            "deadline=1.5      | deadline      | Input should be a valid integer            | int_parsing" })
    void refusesANumberPastItsLimit(String query, String name, String msg, String type) {
        get(query).statusCode(422).body(is("{\"detail\":[{\"loc\":[\"query\",\"" + name + "\"],\"msg\":\"" + msg
                + "\",\"type\":\"" + type + "\"}]}"));
    }

    @Test
    void refusesAnUnknownResetStrategy() {
        get("offset_reset_strategy=newest").statusCode(422).body(is("{\"detail\":[{\"loc\":[\"query\","
                + "\"offset_reset_strategy\"],\"msg\":\"Input should be one of 'latest', 'earliest'\",\"type\":\"enum\"}]}"));
    }

    @Test
    void reportsEveryFaultAtOnce() {
        get("max_page_size=0&deadline=901&offset_reset_strategy=x").statusCode(422)
                .body("detail.loc", is(java.util.List.of(java.util.List.of("query", "max_page_size"),
                        java.util.List.of("query", "deadline"), java.util.List.of("query", "offset_reset_strategy"))));
    }

    @Test
    void ignoresUnknownQueryParameters() {
        get("offset_reset_strategy=earliest&deadline=0&colour=blue").statusCode(200).body("notifications", hasSize(2));
    }
}
