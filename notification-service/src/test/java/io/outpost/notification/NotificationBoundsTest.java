package io.outpost.notification;

import static io.outpost.notification.Fixture.TOKENS;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;

import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.outpost.model.Permissions;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/**
 * Every field of a notification has a byte bound, on a create and on a fan-out alike (docs/notifications.md, "On
 * Kafka" and "Many players in one call"), and a fan-out is measured from its one notification times its players
 * before any player's copy is built: a thousand copies of a 1 MB notification are refused, never written.
 */
@QuarkusTest
class NotificationBoundsTest {

    private static final String BACKEND = TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_WRITE).sign();

    private static ValidatableResponse create(String notification) {
        return given().header("Authorization", "Bearer " + BACKEND).contentType("application/json")
                .body("{\"notifications\":[" + notification + "]}")
                .post("/notification/v1/player/" + UUID.randomUUID() + "/notification").then();
    }

    private static ValidatableResponse fanOut(int players, String notification) {
        String uuids = IntStream.range(0, players).mapToObj(i -> "\"" + UUID.randomUUID() + "\"")
                .collect(Collectors.joining(","));
        return given().header("Authorization", "Bearer " + BACKEND).contentType("application/json")
                .body("{\"request_id\":\"" + UUID.randomUUID() + "\",\"player_uuids\":[" + uuids
                        + "],\"notification\":" + notification + "}")
                .post("/notification/v1/notifications").then();
    }

    private static String fault(String loc, String msg, String type) {
        return "{\"detail\":[{\"loc\":[" + loc + "],\"msg\":\"" + msg + "\",\"type\":\"" + type + "\"}]}";
    }

    /** {"message":"m","custom_data":{"b":"xx…"}} whose custom_data is {@code bytes} bytes as JSON. */
    private static String withCustomData(int bytes) {
        return "{\"message\":\"m\",\"custom_data\":{\"b\":\"" + "x".repeat(bytes - 8) + "\"}}";
    }

    @Test
    void anEtagHasAtMost1024CharactersOnACreateAndAFanOut() {
        String tooLong = "{\"message\":\"m\",\"etag\":\"" + "e".repeat(1025) + "\"}";
        create(tooLong).statusCode(422).body(is(fault("\"body\",\"notifications\",0,\"etag\"",
                "String should have at most 1024 characters", "string_too_long")));
        fanOut(2, tooLong).statusCode(422).body(is(fault("\"body\",\"notification\",\"etag\"",
                "String should have at most 1024 characters", "string_too_long")));
        String atBound = "{\"message\":\"m\",\"etag\":\"" + "e".repeat(1024) + "\"}";
        create(atBound).statusCode(200);
        fanOut(2, atBound).statusCode(200);
    }

    @Test
    void aFanOutOfAThousandPlayersWithAMegabyteEtagIsRefusedForTheEtagAlone() {
        fanOut(1000, "{\"message\":\"m\",\"etag\":\"" + "e".repeat(1_000_000) + "\"}").statusCode(422)
                .body(is(fault("\"body\",\"notification\",\"etag\"", "String should have at most 1024 characters",
                        "string_too_long")));
    }

    @Test
    void customDataHasAtMostAMillionBytesOfJsonOnACreateAndAFanOut() {
        String tooLong = withCustomData(1_000_001);
        String msg = "Value error, custom_data should be at most 1000000 bytes as JSON, not 1000001";
        create(tooLong).statusCode(422).body(is(fault("\"body\",\"notifications\",0,\"custom_data\"", msg,
                "value_error")));
        fanOut(1, tooLong).statusCode(422).body(is(fault("\"body\",\"notification\",\"custom_data\"", msg,
                "value_error")));
    }

    /** The create path's bound on each record (1,000,000 bytes as JSON) holds for each fanned-out copy. */
    @Test
    void eachFannedOutCopyIsBoundAsACreatedNotificationIs() {
        String notification = withCustomData(999_990);
        create(notification).statusCode(422).body("detail[0].loc", is(List.of("body", "notifications", 0)))
                .body("detail[0].msg", matchesPattern(
                        "Value error, Notification should be at most 1000000 bytes as JSON, not 1000[0-9]{3}"));
        fanOut(1, notification).statusCode(422).body("detail.loc", is(List.of(List.of("body", "notification"))))
                .body("detail[0].type", is("value_error")).body("detail[0].msg", matchesPattern(
                        "Value error, Notification should be at most 1000000 bytes as JSON, not 1000[0-9]{3}"));
    }

    /** 20,000 bytes of custom_data is a fine notification, but not for 1,000 players in one call (≈ 20 MB). */
    @Test
    void aCallPastSixteenMebibytesInAllIsRefusedFromTheOneNotificationTimesThePlayers() {
        fanOut(1000, withCustomData(20_000)).statusCode(422)
                .body("detail.loc", is(List.of(List.of("body", "notification"))))
                .body("detail[0].type", is("value_error")).body("detail[0].msg", matchesPattern(
                        "Value error, the notification for 1000 players is 20[0-9]{6} bytes as JSON; a call sends at "
                                + "most 16777216"));
        fanOut(100, withCustomData(20_000)).statusCode(200);
    }
}
