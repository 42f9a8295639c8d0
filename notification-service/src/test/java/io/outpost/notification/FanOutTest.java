package io.outpost.notification;

import static io.outpost.notification.Fixture.TOKENS;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.outpost.model.Permissions;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;

/**
 * {@code POST /notification/v1/notifications} (docs/notifications.md, "Many players in one call"): one notification
 * for many players, each with an id of its own derived from the request id, so that the same request sent again is
 * stored once.
 */
@QuarkusTest
class FanOutTest {

    private static final String PATH = "/notification/v1/notifications";

    private static ValidatableResponse send(String token, String body) {
        return given().header("Authorization", "Bearer " + token).contentType("application/json").body(body)
                .post(PATH).then();
    }

    private static String body(String requestId, List<UUID> players, String notification) {
        return "{\"request_id\":\"" + requestId + "\",\"player_uuids\":[" + players.stream()
                .map(p -> "\"" + p + "\"").collect(Collectors.joining(",")) + "],\"notification\":" + notification + "}";
    }

    @Test
    void everyPlayerGetsTheNotificationOnceEvenWhenTheRequestIsSentAgain() throws Exception {
        List<UUID> players = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            players.add(UUID.randomUUID());
        }
        String backend = TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_WRITE).sign();
        String request = "season-" + UUID.randomUUID();
        String notification = "{\"message\":\"Season 7 has begun\",\"svc_url\":\"/season/7\"}";
        List<String> ids = send(backend, body(request, players, notification)).statusCode(200).extract().jsonPath()
                .getList("notification_ids", String.class);
        assertThat(ids).hasSize(3).doesNotHaveDuplicates();
        assertThat(send(backend, body(request, players, notification)).statusCode(200).extract().jsonPath()
                .getList("notification_ids", String.class)).isEqualTo(ids);
        for (int i = 0; i < players.size(); i++) {
            UUID player = players.get(i);
            String id = ids.get(i);
            await().atMost(Duration.ofSeconds(30)).until(() -> Fixture.ids(Fixture.page(Fixture.poll(
                    Fixture.reader(player), "offset_reset_strategy=earliest&deadline=0").get())).contains(id));
        }
        // sent a third time, after ingest, then a marker for each player: once the marker is there, the repeat
        // before it on the player's partition was ingested — and stored nothing
        send(backend, body(request, players, notification)).statusCode(200);
        for (int i = 0; i < players.size(); i++) {
            UUID player = players.get(i);
            given().header("Authorization", "Bearer " + backend).contentType("application/json")
                    .body("{\"notifications\":[{\"message\":\"marker\",\"notification_id\":\"marker\"}]}")
                    .post("/notification/v1/player/" + player + "/notification").then().statusCode(200);
            List<String> seen = await().atMost(Duration.ofSeconds(30)).until(() -> Fixture.ids(Fixture.page(
                    Fixture.poll(Fixture.reader(player), "offset_reset_strategy=earliest&deadline=0").get())),
                    found -> found.contains("marker"));
            assertThat(seen).containsExactly(ids.get(i), "marker");
        }
    }

    @Test
    void faultsAreLocatedAndOnlyABackendMayFanOut() {
        String backend = TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_WRITE).sign();
        send(backend, "{\"player_uuids\":[],\"notification\":{\"message\":\"m\",\"notification_id\":\"x\"}}")
                .statusCode(422)
                .body("detail.loc", is(List.of(List.of("body", "request_id"), List.of("body", "player_uuids"),
                        List.of("body", "notification", "notification_id"))))
                .body("detail.type", is(List.of("missing", "too_short", "value_error")));
        send(backend, body("r", List.of(), "{\"message\":\"m\"}").replace("[]", "[\"nope\"]")).statusCode(422)
                .body("detail[0].loc", is(List.of("body", "player_uuids", 0)))
                .body("detail[0].type", is("uuid_parsing"));
        List<UUID> many = new ArrayList<>();
        for (int i = 0; i < 1001; i++) {
            many.add(UUID.randomUUID());
        }
        send(backend, body("r", many, "{\"message\":\"m\"}")).statusCode(422)
                .body("detail[0].type", is("too_long"));
        String self = TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_SELF_ALL).player(UUID.randomUUID())
                .sign();
        send(self, body("r", List.of(UUID.randomUUID()), "{\"message\":\"m\"}")).statusCode(403)
                .body("error_code", is("insufficient_permissions"));
    }
}
