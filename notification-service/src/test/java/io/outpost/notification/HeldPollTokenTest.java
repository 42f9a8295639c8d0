package io.outpost.notification;

import static io.outpost.notification.Fixture.TOKENS;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.inject.Inject;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.model.Permissions;
import io.outpost.model.Topics;
import io.outpost.notification.service.PollRegistry;
import io.outpost.notification.store.NotificationStore;
import io.outpost.support.security.revocation.Revocation;
import io.outpost.testsupport.TestKafka;
import io.outpost.testsupport.TestTokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;

/**
 * DESIGN §4a: a held long poll lasts no longer than its token. Revoked by its id, or all of its client's tokens
 * revoked (a client disabled), or past its {@code exp}: the poll is answered 403 with DESIGN §3's code within 2 s,
 * and a notification stored after that is never delivered to it.
 */
@QuarkusTest
class HeldPollTokenTest {

    private static final Duration WITHIN = Duration.ofSeconds(2);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static TestKafka kafka;
    private static boolean feedReading;

    @Inject
    PollRegistry registry;
    @Inject
    NotificationStore store;

    @BeforeAll
    static void kafka() {
        kafka = new TestKafka();
    }

    /** The feed reads the revocation topic (which auth-service would have created) before the first test. */
    @BeforeEach
    void feedIsReading() throws Exception {
        if (feedReading) {
            return;
        }
        TestTokens.Token warm = reader(UUID.randomUUID(), "warm-up").jwtId("warm-" + UUID.randomUUID());
        publish(Revocation.token(warm.jwtId(), "warm-up", Instant.now().plusSeconds(600).getEpochSecond(), "revoked"));
        String token = warm.sign();
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> Fixture.poll(token, "deadline=0").get(10, TimeUnit.SECONDS).statusCode() == 403);
        feedReading = true;
    }

    @AfterAll
    static void close() {
        kafka.close();
    }

    @Test
    void aHeldPollWhoseTokenIsRevokedIsAnswered403AuthTokenUnknownWithinTwoSeconds() throws Exception {
        UUID player = UUID.randomUUID();
        TestTokens.Token token = reader(player, "client-" + UUID.randomUUID()).jwtId("jti-" + UUID.randomUUID());
        CompletableFuture<HttpResponse<String>> held = heldPoll(token.sign(), player);

        publish(Revocation.token(token.jwtId(), "any", Instant.now().plusSeconds(600).getEpochSecond(), "revoked"));
        endedWithin(held, "auth_token_unknown", WITHIN.plusMillis(300)); // the feed's own delay besides
        nothingDeliveredAfter(player);
    }

    @Test
    void aHeldPollOfAClientWhoseTokensAreAllRevokedIsAnswered403AuthTokenUnknown() throws Exception {
        UUID player = UUID.randomUUID();
        String client = "client-" + UUID.randomUUID();
        CompletableFuture<HttpResponse<String>> held = heldPoll(reader(player, client).sign(), player);
        // what disabling a client publishes: every token issued before the cut-off is revoked
        long cutOff = Instant.now().getEpochSecond() + 1;
        publish(Revocation.client(client, cutOff, cutOff + 3600, "disabled"));
        endedWithin(held, "auth_token_unknown", WITHIN.plusMillis(300));
        nothingDeliveredAfter(player);
    }

    @Test
    void aHeldPollIsAnswered403AuthTokenExpiredWhenItsTokenExpiresBeforeTheDeadline() throws Exception {
        UUID player = UUID.randomUUID();
        Instant exp = Instant.now().plusSeconds(3);
        CompletableFuture<HttpResponse<String>> held = heldPoll(reader(player, "client-" + UUID.randomUUID())
                .expiresAt(exp).sign(), player);
        HttpResponse<String> answer = held.get(30, TimeUnit.SECONDS);
        assertThat(Instant.now()).as("answered at the token's exp").isBefore(exp.plus(WITHIN));
        refused(answer, "auth_token_expired");
        nothingDeliveredAfter(player);
    }

    @Test
    void aTokenPastItsExpWithinTheClockSkewOpensNoPoll() throws Exception {
        UUID player = UUID.randomUUID();
        String token = reader(player, "client-" + UUID.randomUUID()).issuedAt(Instant.now().minusSeconds(60))
                .expiresAt(Instant.now().minusSeconds(5)).sign();
        refused(Fixture.poll(token, "deadline=30").get(10, TimeUnit.SECONDS), "auth_token_expired");
    }

    @Test
    void aHeldPollWhoseTokenStaysGoodIsAnsweredWithItsNotification() throws Exception {
        UUID player = UUID.randomUUID();
        CompletableFuture<HttpResponse<String>> held = heldPoll(reader(player, "client-" + UUID.randomUUID())
                .expiresAt(Instant.now().plusSeconds(600)).sign(), player);
        // another client's revocation makes every held poll look at its token again: this one stays held; a
        // marker poll revoked after it ends in the same or a later look, so once it has ended ours was looked at
        UUID other = UUID.randomUUID();
        TestTokens.Token marker = reader(other, "marker-" + UUID.randomUUID()).jwtId("jti-" + UUID.randomUUID());
        CompletableFuture<HttpResponse<String>> markerPoll = heldPoll(marker.sign(), other);
        publish(Revocation.client("someone-else-" + UUID.randomUUID(), Instant.now().getEpochSecond() + 1,
                Instant.now().plusSeconds(3600).getEpochSecond(), "disabled"));
        publish(Revocation.token(marker.jwtId(), "any", Instant.now().plusSeconds(600).getEpochSecond(), "revoked"));
        endedWithin(markerPoll, "auth_token_unknown", WITHIN.plusMillis(300));
        assertThat(held).isNotDone();
        Fixture.store(store, player, "kept", 1);
        assertThat(Fixture.ids(Fixture.page(held.get(10, TimeUnit.SECONDS)))).containsExactly("kept-0");
    }

    /**
     * A client minting and revoking tokens in a loop makes only the polls its revocations may touch look again —
     * sweeps coalesce and look up the polls by token and client — not every poll the instance holds; a revoked
     * token's poll still ends within 2 s.
     */
    @Test
    void revocationsOfOneClientLookOnlyAtThePollsTheyMayTouch() throws Exception {
        String bystanders = "bystander-" + UUID.randomUUID();
        List<UUID> players = new ArrayList<>();
        List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            UUID player = UUID.randomUUID();
            players.add(player);
            held.add(heldPoll(reader(player, bystanders).jwtId("jti-" + UUID.randomUUID()).sign(), player));
        }
        UUID other = UUID.randomUUID();
        String markerClient = "marker-" + UUID.randomUUID();
        TestTokens.Token marker = reader(other, markerClient).jwtId("jti-" + UUID.randomUUID());
        CompletableFuture<HttpResponse<String>> markerPoll = heldPoll(marker.sign(), other);
        double before = tokenChecks();

        String looper = "looper-" + UUID.randomUUID();
        long exp = Instant.now().plusSeconds(600).getEpochSecond();
        for (int i = 0; i < 40; i++) {
            publish(Revocation.token("jti-" + UUID.randomUUID(), looper, exp, "revoked"));
            if (i % 10 == 0) {
                publish(Revocation.client(looper, Instant.now().getEpochSecond(), exp, "secret_rotated"));
            }
        }
        publish(Revocation.token(marker.jwtId(), markerClient, exp, "revoked"));
        endedWithin(markerPoll, "auth_token_unknown", WITHIN.plusMillis(300));

        assertThat(tokenChecks() - before).as("held polls looked at again").isEqualTo(1.0);
        for (int i = 0; i < players.size(); i++) {
            assertThat(held.get(i)).isNotDone();
            Fixture.store(store, players.get(i), "still", 1);
            assertThat(Fixture.ids(Fixture.page(held.get(i).get(10, TimeUnit.SECONDS)))).containsExactly("still-0");
        }
    }

    /**
     * A key retired (left the key set) or replaced (another key under its id) ends the held polls of the tokens it
     * signed, within a key-set refresh (2 s in tests) and a second, with the refusal a fresh verification gives;
     * the polls of other keys' tokens stay held. The token, verified and remembered, is refused on its next request.
     */
    @Test
    void retiringOrReplacingAKeyEndsTheHeldPollsOfItsTokens() throws Exception {
        String retired = TOKENS.publishNewKey();
        String replaced = TOKENS.publishNewKey();
        UUID one = UUID.randomUUID();
        UUID two = UUID.randomUUID();
        UUID bystander = UUID.randomUUID();
        String retiredToken = reader(one, "keys-" + UUID.randomUUID()).keyId(retired).sign();
        String replacedToken = reader(two, "keys-" + UUID.randomUUID()).keyId(replaced).sign();
        assertThat(Fixture.poll(retiredToken, "deadline=0").get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        CompletableFuture<HttpResponse<String>> onRetired = heldPoll(retiredToken, one);
        CompletableFuture<HttpResponse<String>> onReplaced = heldPoll(replacedToken, two);
        CompletableFuture<HttpResponse<String>> other = heldPoll(reader(bystander, "keys-" + UUID.randomUUID())
                .sign(), bystander);

        TOKENS.unpublish(retired);
        TOKENS.replaceKey(replaced);
        Duration within = Duration.ofSeconds(8); // refresh 2 s, its check every 1 s, the sweep; slow machines
        endedWithin(onRetired, "auth_invalid_key_id", within);
        endedWithin(onReplaced, "auth_token_sig_invalid", within);
        refused(Fixture.poll(retiredToken, "deadline=0").get(10, TimeUnit.SECONDS), "auth_invalid_key_id");
        refused(Fixture.poll(replacedToken, "deadline=0").get(10, TimeUnit.SECONDS), "auth_token_sig_invalid");
        assertThat(other).isNotDone();
        Fixture.store(store, bystander, "kept", 1);
        assertThat(Fixture.ids(Fixture.page(other.get(10, TimeUnit.SECONDS)))).containsExactly("kept-0");
    }

    private static double tokenChecks() {
        String metrics = RestAssured.given().when().get("/q/metrics").then().statusCode(200).extract().asString();
        Matcher m = Pattern.compile("(?m)^outpost_notification_polls_token_checks_total(?:\\{[^}]*})? ([0-9.E]+)$")
                .matcher(metrics);
        assertThat(m.find()).as("outpost_notification_polls_token_checks_total in /q/metrics").isTrue();
        return Double.parseDouble(m.group(1));
    }

    private static TestTokens.Token reader(UUID player, String client) {
        return TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_SELF_READ).player(player).client(client);
    }

    /** A poll of {@code player} held (deadline 60 s) by this instance. */
    private CompletableFuture<HttpResponse<String>> heldPoll(String token, UUID player) {
        CompletableFuture<HttpResponse<String>> held = Fixture.poll(token, "deadline=60");
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> registry.waitingBy(player) == 1);
        return held;
    }

    private static void endedWithin(CompletableFuture<HttpResponse<String>> held, String code, Duration within)
            throws Exception {
        refused(held.get(within.toMillis(), TimeUnit.MILLISECONDS), code);
    }

    private static void refused(HttpResponse<String> answer, String code) throws Exception {
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(403);
        JsonNode body = JSON.readTree(answer.body());
        assertThat(body.get("auth_success").asBoolean()).isFalse();
        assertThat(body.get("error_code").asText()).isEqualTo(code);
    }

    /** The ended poll no longer holds a place: a notification stored now reaches no poll of the player. */
    private void nothingDeliveredAfter(UUID player) {
        assertThat(registry.heldBy(player)).isZero();
        Fixture.store(store, player, "late", 1);
        assertThat(registry.heldBy(player)).isZero();
    }

    private static void publish(Revocation revocation) throws Exception {
        kafka.send(Topics.AUTH_TOKEN_REVOCATIONS, revocation.key(), JSON.writeValueAsString(revocation));
    }
}
