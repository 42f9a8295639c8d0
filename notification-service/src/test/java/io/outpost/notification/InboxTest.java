package io.outpost.notification;

import static io.outpost.notification.Fixture.TOKENS;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.is;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.model.Permissions;
import io.outpost.notification.service.RetentionPurge;
import io.outpost.notification.store.NewNotification;
import io.outpost.notification.store.NotificationStore;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/**
 * The inbox beside the long poll (docs/notifications.md, "Reading pages and one notification", "Delete and read
 * state", "Expiry"): pages newest first whose cursors list every notification once, an ETag that changes exactly
 * when the page would, by id, delete, the read marker, expiry.
 */
@QuarkusTest
class InboxTest {

    private static final String BASE = "/notification/v1/player/";

    @Inject
    NotificationStore store;
    @Inject
    RetentionPurge purge;
    @Inject
    MeterRegistry meters;

    private static String self(UUID player) {
        return TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_SELF_ALL).player(player).sign();
    }

    private static RequestSpecification as(String token) {
        return given().header("Authorization", "Bearer " + token);
    }

    private static Response page(String token, String query) {
        return as(token).get(BASE + "me/notification" + (query.isEmpty() ? "" : "?" + query));
    }

    private static List<String> ids(Response page) {
        return page.then().statusCode(200).extract().jsonPath().getList("notifications.notification_id", String.class);
    }

    private List<String> stored(UUID player, int count) {
        return Fixture.store(store, player, "n", count);
    }

    @Test
    void pagesListEveryNotificationOnceNewestFirstAlongTheirCursors() {
        UUID player = UUID.randomUUID();
        List<String> stored = stored(player, 25);
        String token = self(player);
        List<String> seen = new ArrayList<>();
        String cursor = null;
        for (int pages = 0; pages < 10; pages++) {
            Response answer = page(token, "page_size=10" + (cursor == null ? "" : "&start_at=" + cursor));
            List<String> ids = ids(answer);
            if (ids.isEmpty()) {
                assertThat(answer.jsonPath().getString("cursor")).isEqualTo("pos-0");
                break;
            }
            seen.addAll(ids);
            cursor = answer.jsonPath().getString("cursor");
            // new notifications arriving meanwhile go on top: only the first page would show them
            Fixture.store(store, player, "later-" + pages, 1);
        }
        assertThat(seen).isEqualTo(newestFirst(stored));
        // the default page size is 10, and exclude_before stops a page above a notification
        assertThat(ids(page(token, ""))).hasSize(10);
        assertThat(ids(page(token, "start_at=" + stored.get(4) + "&exclude_before=" + stored.get(1))))
                .containsExactly(stored.get(4), stored.get(3), stored.get(2));
        // an id the player never had stands before everything it has
        assertThat(ids(page(token, "start_at=never"))).isEmpty();
        assertThat(ids(page(token, "exclude_before=never&page_size=100"))).hasSize(25 + 3);
    }

    @Test
    void pageSizeIsOneToAHundredAndOtherPlayersNeedTheirOwnPermission() {
        UUID player = UUID.randomUUID();
        String token = self(player);
        page(token, "page_size=0").then().statusCode(422).body("detail[0].loc", is(List.of("query", "page_size")))
                .body("detail[0].type", is("greater_than_equal"));
        page(token, "page_size=101").then().statusCode(422).body("detail[0].type", is("less_than_equal"));
        as(token).get(BASE + UUID.randomUUID() + "/notification").then().statusCode(403)
                .body("error_code", is("insufficient_permissions"));
        as(token).get(BASE + player + "/notification").then().statusCode(200);
        String reader = TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_READ).sign();
        as(reader).get(BASE + player + "/notification").then().statusCode(200);
        as(reader).get(BASE + "me/notification").then().statusCode(403).body("error_code", is("invalid_token_claims"));
        as(token).get(BASE + "not-a-uuid/notification").then().statusCode(422)
                .body("detail[0].loc", is(List.of("path", "player_uuid")));
    }

    @Test
    void theETagChangesExactlyWhenThePageWouldAndAMatchIsA304WithoutABody() {
        UUID player = UUID.randomUUID();
        List<String> stored = stored(player, 3);
        String token = self(player);
        Response first = page(token, "");
        String etag = first.header("ETag");
        assertThat(etag).startsWith("\"").endsWith("\"");
        Response same = as(token).header("If-None-Match", etag).get(BASE + "me/notification");
        assertThat(same.statusCode()).isEqualTo(304);
        assertThat(same.asString()).isEmpty();
        assertThat(same.header("ETag")).isEqualTo(etag);
        as(token).header("If-None-Match", "\"other\", W/" + etag).get(BASE + "me/notification").then().statusCode(304);
        assertThat(page(token, "").header("ETag")).as("nothing changed").isEqualTo(etag);

        as(token).contentType("application/json").body("{\"notification_id\":\"" + stored.get(1) + "\"}")
                .put(BASE + "me/notification/read-marker").then().statusCode(204);
        String afterRead = page(token, "").header("ETag");
        assertThat(afterRead).isNotEqualTo(etag);
        as(token).header("If-None-Match", etag).get(BASE + "me/notification").then().statusCode(200);
        // a page that does not show what changed keeps its tag: a new notification is not on page start_at=<id>
        String older = page(token, "start_at=" + stored.get(0)).header("ETag");
        Fixture.store(store, player, "new", 1);
        assertThat(page(token, "start_at=" + stored.get(0)).header("ETag")).isEqualTo(older);
        assertThat(page(token, "").header("ETag")).isNotEqualTo(afterRead);
    }

    @Test
    void theReadMarkerMarksANotificationAndEveryOlderOneAndNeverMovesBack() {
        UUID player = UUID.randomUUID();
        List<String> stored = stored(player, 4);
        String token = self(player);
        markRead(token, stored.get(2)).then().statusCode(204);
        JsonPath page = page(token, "").jsonPath();
        assertThat(page.getList("notifications.read", Boolean.class)).containsExactly(false, true, true, true);
        markRead(token, stored.get(0)).then().statusCode(204);
        assertThat(page(token, "").jsonPath().getList("notifications.read", Boolean.class))
                .containsExactly(false, true, true, true);
        markRead(token, "never").then().statusCode(404).body("error_code", is("resource_not_found"));
        as(token).contentType("application/json").body("{}").put(BASE + "me/notification/read-marker").then()
                .statusCode(422).body("detail[0].loc", is(List.of("body", "notification_id")));
        String reader = TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_SELF_READ).player(player).sign();
        markRead(reader, stored.get(3)).then().statusCode(403).body("error_code", is("insufficient_permissions"));
    }

    /** Reads of the inbox's statements so far ({@code outpost_notification_store_queries_total{query}}). */
    private double queries(String kind) {
        Counter counter = meters.find("outpost.notification.store.queries").tag("query", kind).counter();
        return counter == null ? 0 : counter.count();
    }

    private static List<String> newestFirst(List<String> ids) {
        List<String> copy = new ArrayList<>(ids);
        Collections.reverse(copy);
        return copy;
    }

    /** The read is answered as expected, and cost one query of {@code kind} and none of the other. */
    private void costsOneQuery(String kind, String other, Runnable read) {
        double before = queries(kind);
        double otherBefore = queries(other);
        read.run();
        assertThat(queries(kind) - before).as(kind + " queries").isEqualTo(1.0);
        assertThat(queries(other) - otherBefore).as(other + " queries").isZero();
    }

    @Test
    void aPageAnOlderPageA304AndAReadByIdEachCostOneQuery() {
        UUID player = UUID.randomUUID();
        List<String> stored = stored(player, 25);
        String token = self(player);
        Response first = page(token, "page_size=10");
        String etag = first.then().statusCode(200).extract().header("ETag");
        String cursor = first.jsonPath().getString("cursor");

        costsOneQuery("page", "by_id", () -> assertThat(ids(page(token, "page_size=10")))
                .containsExactlyElementsOf(newestFirst(stored.subList(15, 25))));
        costsOneQuery("page", "by_id", () -> assertThat(ids(page(token, "page_size=10&start_at=" + cursor)))
                .containsExactlyElementsOf(newestFirst(stored.subList(5, 15))));
        costsOneQuery("page", "by_id", () -> as(token).header("If-None-Match", etag)
                .get(BASE + "me/notification?page_size=10").then().statusCode(304).body(is("")));
        costsOneQuery("by_id", "page", () -> as(token).get(BASE + "me/notification/" + stored.get(3)).then()
                .statusCode(200).body("notification_id", is(stored.get(3))));
    }

    @Test
    void oneNotificationById() {
        UUID player = UUID.randomUUID();
        List<String> stored = stored(player, 2);
        String token = self(player);
        as(token).get(BASE + "me/notification/" + stored.get(1)).then().statusCode(200)
                .body("notification_id", is(stored.get(1))).body("message", is("message n-1"));
        as(token).get(BASE + player + "/notification/" + stored.get(0)).then().statusCode(200);
        as(token).get(BASE + "me/notification/never").then().statusCode(404)
                .body(is("{\"error_code\":\"resource_not_found\",\"desc\":\"The player has no notification never\"}"));
        as(token).urlEncodingEnabled(false).get(BASE + "me/notification/a%00b").then().statusCode(422)
                .body("detail[0].loc", is(List.of("path", "notification_id")))
                .body("detail[0].type", is("string_pattern_mismatch"));
        // another player's notification is not this player's
        as(self(UUID.randomUUID())).get(BASE + "me/notification/" + stored.get(0)).then().statusCode(404);
    }

    @Test
    void aDeletedNotificationIsNeverListedNorDeliveredAndAPollNamingItResumesAfterIt() throws Exception {
        UUID player = UUID.randomUUID();
        List<String> stored = stored(player, 3);
        String token = self(player);
        as(token).delete(BASE + "me/notification/" + stored.get(1)).then().statusCode(204);
        as(token).delete(BASE + "me/notification/" + stored.get(1)).then().statusCode(204);
        as(token).delete(BASE + "me/notification/never").then().statusCode(404).body("error_code", is("resource_not_found"));
        assertThat(ids(page(token, ""))).containsExactly(stored.get(2), stored.get(0));
        as(token).get(BASE + "me/notification/" + stored.get(1)).then().statusCode(404);
        assertThat(Fixture.ids(Fixture.page(Fixture.poll(Fixture.reader(player), "offset_reset_strategy=earliest&deadline=0")
                .get()))).containsExactly(stored.get(0), stored.get(2));
        var resumed = Fixture.poll(Fixture.reader(player), "exclude_before=" + stored.get(1) + "&deadline=0").get();
        assertThat(Fixture.ids(Fixture.page(resumed))).containsExactly(stored.get(2));
        assertThat(resumed.headers().firstValue("x-svc-cursor-reset")).isEmpty();

        // the purge empties it and keeps its place
        purge.purge().await().atMost(Duration.ofSeconds(30));
        var afterPurge = Fixture.poll(Fixture.reader(player), "exclude_before=" + stored.get(1) + "&deadline=0").get();
        assertThat(Fixture.ids(Fixture.page(afterPurge))).containsExactly(stored.get(2));
    }

    @Test
    void anExpiredNotificationIsNeverDeliveredNorListed() throws Exception {
        UUID player = UUID.randomUUID();
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        store.insert(List.of(
                new NewNotification(player, "gone", "expired", null, null, null, now, now.minusSeconds(1)),
                new NewNotification(player, "kept", "kept", null, null, null, now, now.plusSeconds(3600)),
                new NewNotification(player, "plain", "plain", null, null, null, now)))
                .await().atMost(Duration.ofSeconds(10));
        String token = self(player);
        assertThat(ids(page(token, ""))).containsExactly("plain", "kept");
        page(token, "").then().body("notifications[1].expires_at", is(now.plusSeconds(3600).toString()));
        as(token).get(BASE + "me/notification/gone").then().statusCode(404);
        assertThat(Fixture.ids(Fixture.page(Fixture.poll(Fixture.reader(player),
                "offset_reset_strategy=earliest&deadline=0").get()))).containsExactly("kept", "plain");
        // a held poll is not answered with one that has expired by the time it is stored
        var held = Fixture.poll(Fixture.reader(player), "exclude_before=plain&deadline=2");
        store.insert(List.of(new NewNotification(player, "late", "late", null, null, null, now, now)))
                .await().atMost(Duration.ofSeconds(10));
        assertThat(Fixture.ids(Fixture.page(held.get()))).isEmpty();
    }

    @Test
    void aCursorThatNamesNothingTheStreamHoldsIsAnsweredWithTheResetApplied() throws Exception {
        UUID player = UUID.randomUUID();
        stored(player, 2);
        var lost = Fixture.poll(Fixture.reader(player), "exclude_before=never&offset_reset_strategy=earliest&deadline=0")
                .get();
        assertThat(lost.headers().firstValue("x-svc-cursor-reset")).hasValue("earliest");
        assertThat(Fixture.ids(Fixture.page(lost))).hasSize(2);
        var latest = Fixture.poll(Fixture.reader(player), "exclude_before=pos-999&deadline=0").get();
        assertThat(latest.headers().firstValue("x-svc-cursor-reset")).hasValue("latest");
        var none = Fixture.poll(Fixture.reader(player), "deadline=0").get();
        assertThat(none.headers().firstValue("x-svc-cursor-reset")).isEmpty();
    }

    @Test
    void thePerPlayerLongPollTakesItsOwnPlayerWithSelfAndAnyPlayerWithRead() throws Exception {
        UUID player = UUID.randomUUID();
        List<String> stored = stored(player, 1);
        String path = BASE + player + "/stream/notification/lp?offset_reset_strategy=earliest&deadline=0";
        as(Fixture.reader(player)).get(path).then().statusCode(200)
                .body("notifications[0].notification_id", is(stored.get(0)));
        String self = TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_SELF_READ).player(player).sign();
        as(self).get(path).then().statusCode(200);
        String otherSelf = TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_SELF_ALL)
                .player(UUID.randomUUID()).sign();
        as(otherSelf).get(path).then().statusCode(403).body("error_code", is("insufficient_permissions"));
        String backend = TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_READ).sign();
        as(backend).get(path).then().statusCode(200);
        as(backend).get(BASE + "not-a-uuid/stream/notification/lp").then().statusCode(422)
                .body("detail[0].loc", is(List.of("path", "player_uuid")));
    }

    private static Response markRead(String token, String id) {
        return as(token).contentType("application/json").body("{\"notification_id\":\"" + id + "\"}")
                .put(BASE + "me/notification/read-marker");
    }
}
