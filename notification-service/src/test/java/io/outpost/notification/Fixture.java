package io.outpost.notification;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

import io.outpost.model.Permissions;
import io.outpost.model.api.NotificationPage;
import io.outpost.notification.store.NewNotification;
import io.outpost.notification.store.NotificationStore;
import io.outpost.testsupport.TestTokens;
import io.restassured.RestAssured;

/** Tokens, stored notifications and asynchronous long polls for this module's tests. */
final class Fixture {

    static final TestTokens TOKENS = TestTokens.shared();
    static final String LP = "/notification/v1/player/me/stream/notification/lp";
    static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private Fixture() {
    }

    /** A token of {@code player} allowed to read its own notifications. */
    static String reader(UUID player) {
        return TOKENS.token().permissions(Permissions.NOTIFICATION_PLAYER_READ).player(player).sign();
    }

    static NewNotification note(UUID player, String id, String message) {
        return new NewNotification(player, id, message, null, null, null, Instant.now().truncatedTo(ChronoUnit.MICROS));
    }

    /** Stores {@code count} notifications {@code prefix-0..} for the player through the store, as ingest would. */
    static List<String> store(NotificationStore store, UUID player, String prefix, int count) {
        List<NewNotification> batch = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            batch.add(note(player, prefix + "-" + i, "message " + prefix + "-" + i));
        }
        store.insert(batch).await().atMost(Duration.ofSeconds(10));
        return batch.stream().map(NewNotification::notificationId).toList();
    }

    /** Starts a long poll without waiting for its answer. */
    static CompletableFuture<HttpResponse<String>> poll(String token, String query) {
        return pollAt(LP, token, query);
    }

    /** A poll of {@code player} by its uuid in the path (the vendor's per-player path), as a backend reads one. */
    static CompletableFuture<HttpResponse<String>> pollOf(UUID player, String token, String query) {
        return pollAt(LP.replace("/me/", "/" + player + "/"), token, query);
    }

    private static CompletableFuture<HttpResponse<String>> pollAt(String path, String token, String query) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + RestAssured.port + path
                + (query.isEmpty() ? "" : "?" + query))).header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(150)).GET().build();
        return HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    static NotificationPage page(HttpResponse<String> response) {
        if (response.statusCode() != 200) {
            throw new AssertionError("expected 200, got " + response.statusCode() + ": " + response.body());
        }
        try {
            return JSON.readValue(response.body(), NotificationPage.class);
        } catch (Exception e) {
            throw new AssertionError("not a notification page: " + response.body(), e);
        }
    }

    static List<String> ids(NotificationPage page) {
        return page.notifications().stream().map(n -> n.notificationId()).toList();
    }
}
