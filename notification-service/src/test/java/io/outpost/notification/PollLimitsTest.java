package io.outpost.notification;

import static io.outpost.notification.Fixture.page;
import static io.outpost.notification.Fixture.poll;
import static io.outpost.notification.Fixture.reader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import jakarta.inject.Inject;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import io.outpost.model.Permissions;
import io.outpost.model.api.NotificationPage;
import io.outpost.notification.service.PollRegistry;
import io.outpost.notification.store.NotificationStore;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** DESIGN §4 limits (409 per player, 503 per instance, both configurable) and the answer of held polls on stop. */
@QuarkusTest
@TestProfile(SmallSettingsProfile.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PollLimitsTest {

    @Inject
    PollRegistry registry;

    @Inject
    NotificationStore store;

    @Test
    @Order(1)
    void onePollTooManyForAPlayerIs409UntilOneEnds() throws Exception {
        UUID player = UUID.randomUUID();
        CompletableFuture<HttpResponse<String>> first = poll(reader(player), "deadline=30");
        CompletableFuture<HttpResponse<String>> second = poll(reader(player), "deadline=30");
        await().until(() -> registry.heldBy(player) == 2);
        HttpResponse<String> third = poll(reader(player), "deadline=30").get();
        assertThat(third.statusCode()).isEqualTo(409);
        assertThat(third.body()).isEqualTo("{\"error_code\":\"too_many_listening_to_single_client\","
                + "\"desc\":\"This player already holds 2 long polls\"}");
        Fixture.store(store, player, "l", 1);
        assertThat(Fixture.ids(page(first.get()))).containsExactly("l-0");
        assertThat(Fixture.ids(page(second.get()))).containsExactly("l-0");
        await().until(() -> registry.heldBy(player) == 0);
        assertThat(poll(reader(player), "deadline=0").get().statusCode()).isEqualTo(200);
    }

    @Test
    @Order(2)
    void onePollTooManyForTheInstanceIs503() throws Exception {
        List<UUID> players = List.of(UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID());
        List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
        players.forEach(p -> held.add(poll(reader(p), "deadline=30")));
        await().until(() -> registry.held() == 3);
        HttpResponse<String> refused = poll(reader(UUID.randomUUID()), "deadline=30").get();
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.body()).isEqualTo("{\"error_code\":\"connection_limit_reached\","
                + "\"desc\":\"This instance holds its maximum of 3 long polls; retry shortly\"}");
        players.forEach(p -> Fixture.store(store, p, "g", 1));
        for (CompletableFuture<HttpResponse<String>> poll : held) {
            assertThat(Fixture.ids(page(poll.get()))).containsExactly("g-0");
        }
    }

    /**
     * A reader that is not the player (a backend's {@code notification:player:read} token, bound to no player) holds
     * that player's polls within a limit of its own (here 1): it cannot take the slots of the player's game client.
     */
    @Test
    @Order(3)
    void otherReadersCannotTakeAPlayersOwnSlots() throws Exception {
        UUID player = UUID.randomUUID();
        String backend = Fixture.TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_READ).sign();
        CompletableFuture<HttpResponse<String>> backendPoll = Fixture.pollOf(player, backend, "deadline=30");
        await().until(() -> registry.heldBy(player) == 1);
        HttpResponse<String> second = Fixture.pollOf(player, backend, "deadline=30").get();
        assertThat(second.statusCode()).isEqualTo(409);
        assertThat(second.body()).isEqualTo("{\"error_code\":\"too_many_listening_to_single_client\","
                + "\"desc\":\"Other readers already hold 1 long polls of this player\"}");
        // the player's own two slots are still free
        CompletableFuture<HttpResponse<String>> own1 = poll(reader(player), "deadline=30");
        CompletableFuture<HttpResponse<String>> own2 = poll(reader(player), "deadline=30");
        await().until(() -> registry.heldBy(player) == 3);
        Fixture.store(store, player, "o", 1);
        for (CompletableFuture<HttpResponse<String>> held : List.of(backendPoll, own1, own2)) {
            assertThat(Fixture.ids(page(held.get()))).containsExactly("o-0");
        }
        await().until(() -> registry.heldBy(player) == 0);
    }

    @Test
    @Order(3)
    void clientThatGoesAwayFreesItsSlot() {
        UUID player = UUID.randomUUID();
        CompletableFuture<HttpResponse<String>> first = poll(reader(player), "deadline=30");
        await().until(() -> registry.heldBy(player) == 1);
        first.cancel(true); // java.net.http closes the connection of a cancelled exchange
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.heldBy(player) == 0);
    }

    /** Last: the registry stays closed afterwards, as in a stopping instance. */
    @Test
    @Order(4)
    void stoppingAnswersEveryHeldPollWithItsCursor() throws Exception {
        UUID player = UUID.randomUUID();
        Fixture.store(store, player, "s", 1);
        CompletableFuture<HttpResponse<String>> resumed = poll(reader(player), "deadline=600&exclude_before=s-0");
        CompletableFuture<HttpResponse<String>> fresh = poll(reader(UUID.randomUUID()), "deadline=600");
        await().until(() -> registry.held() == 2);
        long start = System.nanoTime();
        registry.answerAll(Duration.ofSeconds(5)); // what the ShutdownEvent observer does
        NotificationPage first = page(resumed.get());
        assertThat(first.notifications()).isEmpty();
        assertThat(first.cursor()).isEqualTo("s-0");
        assertThat(page(fresh.get()).cursor()).isEqualTo("pos-0");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        // a poll arriving while stopping is answered at once
        assertThat(page(poll(reader(player), "deadline=600&exclude_before=s-0").get()).cursor()).isEqualTo("s-0");
    }
}
