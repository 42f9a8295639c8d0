package io.outpost.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * What a game client or a backend sees of the stack, over plain HTTP, with a bound on every wait: a request
 * that hangs comes back as "no answer" ({@link Answer#NO_ANSWER}) after its timeout instead of stalling the
 * test.
 */
final class Client {

    static final String POLL = "/notification/v1/player/me/stream/notification/lp";
    static final ObjectMapper JSON = new ObjectMapper();

    /** One answer: its status ({@link #NO_ANSWER} when none came in time), its body, and how long it took. */
    record Answer(int status, JsonNode body, Duration took) {
        static final int NO_ANSWER = -1;

        String errorCode() {
            return body.path("error_code").asText(null);
        }

        @Override
        public String toString() {
            return (status == NO_ANSWER ? "no answer" : status + " " + body) + " after " + took.toMillis() + " ms";
        }
    }

    /** A client's cursor loop so far: the notifications in the order received, and the cursor to go on from. */
    record Drained(List<JsonNode> notifications, String cursor) {
        List<String> messages() {
            return notifications.stream().map(n -> n.path("message").asText()).toList();
        }
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** Requests made side by side each get a thread (the common pool has one on a 2-core machine). */
    private static final ExecutorService CONCURRENT = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "e2e-client");
        thread.setDaemon(true);
        return thread;
    });

    private final String base;

    /** @param base the gateway, or one service's own address */
    Client(String base) {
        this.base = base;
    }

    /** A token for a registered client (client_credentials, HTTP Basic); it must be granted. */
    String token(String clientId, String secret) {
        Answer answer = tokenRequest(clientId, secret, Duration.ofSeconds(30));
        if (answer.status() != 200) {
            throw new AssertionError("no token for " + clientId + ": " + answer);
        }
        return answer.body().get("access_token").asText();
    }

    Answer tokenRequest(String clientId, String secret, Duration timeout) {
        String basic = Base64.getEncoder().encodeToString((clientId + ":" + secret).getBytes(StandardCharsets.UTF_8));
        return send(HttpRequest.newBuilder(URI.create(base + "/users/v2/oauth/token"))
                .header("Authorization", "Basic " + basic).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"grant_type\":\"client_credentials\"}")), timeout);
    }

    Answer get(String pathAndQuery, String token, Duration timeout) {
        return send(request(pathAndQuery, token).GET(), timeout);
    }

    CompletableFuture<Answer> getAsync(String pathAndQuery, String token, Duration timeout) {
        return async(() -> get(pathAndQuery, token, timeout));
    }

    Answer post(String path, String token, String json, Duration timeout) {
        return send(request(path, token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)), timeout);
    }

    /** Runs a request of this client on a thread of its own, so that several can be sent side by side. */
    static <T> CompletableFuture<T> async(Supplier<T> request) {
        return CompletableFuture.supplyAsync(request, CONCURRENT);
    }

    /** Publishes one notification for {@code player} over HTTP (the answer is 200 once Kafka has it). */
    Answer publish(UUID player, String token, String message, Duration timeout) {
        return publish(player, token, message, null, timeout);
    }

    /** The same with the publisher's own {@code notification_id} (unless null). */
    Answer publish(UUID player, String token, String message, String notificationId, Duration timeout) {
        var notification = JSON.createObjectNode().put("message", message);
        if (notificationId != null) {
            notification.put("notification_id", notificationId);
        }
        return post("/notification/v1/player/" + player + "/notification", token,
                JSON.createObjectNode().set("notifications", JSON.createArrayNode().add(notification)).toString(),
                timeout);
    }

    /**
     * Follows the long-poll cursor loop from the player's earliest notification ({@code exclude_before} = the
     * previous answer's {@code cursor}) until {@code expected} notifications have arrived or {@code within} has
     * passed; every answer must be a 200.
     */
    Drained drain(String token, int expected, Duration within) {
        return drain(token, null, expected, within);
    }

    /** The same from {@code cursor} (null: from the earliest). */
    Drained drain(String token, String cursor, int expected, Duration within) {
        List<JsonNode> received = new ArrayList<>();
        long deadline = System.nanoTime() + within.toNanos();
        while (received.size() < expected && System.nanoTime() < deadline) {
            Answer page = poll(token, cursor, 1);
            page.body().get("notifications").forEach(received::add);
            cursor = page.body().get("cursor").asText();
        }
        return new Drained(received, cursor);
    }

    /** One poll of the cursor loop ({@code cursor} null: from the earliest); it must answer 200. */
    Answer poll(String token, String cursor, int deadlineSeconds) {
        String query = "?max_page_size=100&deadline=" + deadlineSeconds + (cursor == null
                ? "&offset_reset_strategy=earliest"
                : "&exclude_before=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
        Answer page = get(POLL + query, token, Duration.ofSeconds(deadlineSeconds + 30L));
        if (page.status() != 200) {
            throw new AssertionError("poll " + query + ": " + page);
        }
        return page;
    }

    /** Every transaction of a sandbox's listing, oldest first, paging with its cursor; every page must be a 200. */
    List<JsonNode> history(String token, String sandbox, String listing) {
        List<JsonNode> all = new ArrayList<>();
        String cursor = "0";
        while (cursor != null) {
            String url = "/v1/history/sandbox/" + sandbox + "/" + listing + "?sort_order=asc&page_size=500&cursor="
                    + URLEncoder.encode(cursor, StandardCharsets.UTF_8);
            Answer page = get(url, token, Duration.ofSeconds(30));
            if (page.status() != 200) {
                throw new AssertionError(url + ": " + page);
            }
            page.body().get("transactions").forEach(all::add);
            JsonNode next = page.body().path("page_meta").path("cursor");
            cursor = next.isTextual() ? next.asText() : null;
        }
        return all;
    }

    private HttpRequest.Builder request(String pathAndQuery, String token) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + pathAndQuery));
        return token == null ? builder : builder.header("Authorization", "Bearer " + token);
    }

    private static Answer send(HttpRequest.Builder request, Duration timeout) {
        long start = System.nanoTime();
        try {
            HttpResponse<String> response = HTTP.send(request.timeout(timeout).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), parse(response.body()), Duration.ofNanos(System.nanoTime() - start));
        } catch (HttpTimeoutException e) {
            return new Answer(Answer.NO_ANSWER, NullNode.getInstance(), Duration.ofNanos(System.nanoTime() - start));
        } catch (IOException e) {
            return new Answer(Answer.NO_ANSWER, TextNode.valueOf(e.toString()), Duration.ofNanos(System.nanoTime() - start));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode parse(String body) {
        try {
            return body.isEmpty() ? NullNode.getInstance() : JSON.readTree(body);
        } catch (IOException notJson) {
            return TextNode.valueOf(body);
        }
    }
}
