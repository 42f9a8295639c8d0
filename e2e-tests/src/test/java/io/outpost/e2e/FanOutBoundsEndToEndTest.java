package io.outpost.e2e;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Through the gateway, against the packaged notification-service with its bounded heap (E2eStack): three fan-outs at
 * once, each of a 1 MB {@code etag} for 1,000 players — ≈ 1 GB of JSON had each copy been written — are each refused
 * 422 for the etag's bound (docs/notifications.md, "Many players in one call"), while a poll held beside them is
 * still answered and the service's heap stays under its maximum.
 */
class FanOutBoundsEndToEndTest {

    /** A player of E2eStack no other test uses. */
    private static final int POLLER = 8;
    private static final String REFUSED = "{\"detail\":[{\"loc\":[\"body\",\"notification\",\"etag\"],"
            + "\"msg\":\"String should have at most 1024 characters\",\"type\":\"string_too_long\"}]}";
    private static final Pattern USED = heapSeries("jvm_memory_used_bytes");
    private static final Pattern MAX = heapSeries("jvm_memory_max_bytes");

    @Test
    void threeThousandPlayerFanOutsOfAMegabyteEtagAreRefusedAndTheServiceKeepsPolling() throws Exception {
        Client gateway = new Client(E2eStack.get().gatewayUrl());
        String metrics = E2eStack.get().service("notification-service").url() + "/q/metrics";
        String backend = gateway.token(E2eStack.PUBLISHER_CLIENT, E2eStack.PUBLISHER_SECRET);
        String player = gateway.token(E2eStack.playerClient(POLLER), E2eStack.PLAYER_SECRET);
        long max = sum(MAX, given().get(metrics).asString());
        assertThat(max).as("the service's heap maximum").isPositive();

        CompletableFuture<Client.Answer> held = gateway.getAsync(Client.POLL + "?deadline=120", player,
                Duration.ofSeconds(150));
        AtomicBoolean sampling = new AtomicBoolean(true);
        AtomicLong peak = new AtomicLong();
        CompletableFuture<Void> sampler = Client.async(() -> {
            while (sampling.get()) {
                peak.accumulateAndGet(sum(USED, given().get(metrics).asString()), Math::max);
                sleep(100);
            }
            return null;
        });
        String etag = "e".repeat(1_000_000);
        List<CompletableFuture<Client.Answer>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String body = "{\"request_id\":\"" + UUID.randomUUID() + "\",\"player_uuids\":["
                    + Stream.generate(UUID::randomUUID).limit(1000).map(p -> "\"" + p + "\"")
                            .collect(Collectors.joining(","))
                    + "],\"notification\":{\"message\":\"m\",\"etag\":\"" + etag + "\"}}";
            calls.add(Client.async(() -> gateway.post("/notification/v1/notifications", backend, body,
                    Duration.ofSeconds(60))));
        }
        for (CompletableFuture<Client.Answer> call : calls) {
            Client.Answer answer = call.get();
            assertThat(answer.status()).as(answer.toString()).isEqualTo(422);
            assertThat(answer.body()).isEqualTo(Client.JSON.readTree(REFUSED));
        }

        // the poll held all along is answered for a notification published after them, and a new one answers too
        String id = "after-" + UUID.randomUUID();
        assertThat(gateway.publish(E2eStack.PLAYERS.get(POLLER), backend, "still here", id, Duration.ofSeconds(30))
                .status()).isEqualTo(200);
        Client.Answer answered = held.get();
        assertThat(answered.status()).as(answered.toString()).isEqualTo(200);
        assertThat(ids(answered.body())).containsExactly(id);
        // a new poll, resuming after it, is answered with the next one (the player has others before: other tests')
        String next = "next-" + UUID.randomUUID();
        assertThat(gateway.publish(E2eStack.PLAYERS.get(POLLER), backend, "still polling", next, Duration.ofSeconds(30))
                .status()).isEqualTo(200);
        Client.Answer again = gateway.poll(player, answered.body().get("cursor").asText(), 30);
        assertThat(ids(again.body())).containsExactly(next);
        sampling.set(false);
        sampler.get();
        assertThat(peak.get()).as("heap used at its peak, of " + max).isPositive().isLessThan(max);
    }

    private static List<String> ids(JsonNode page) {
        List<String> ids = new ArrayList<>();
        page.path("notifications").forEach(n -> ids.add(n.path("notification_id").asText()));
        return ids;
    }

    /** The lines of {@code metric} for the heap's pools (Micrometer: one per pool, {@code area="heap"}). */
    private static Pattern heapSeries(String metric) {
        return Pattern.compile("(?m)^" + metric + "\\{[^}]*area=\"heap\"[^}]*\\} ([0-9.E+-]+)$");
    }

    private static long sum(Pattern series, String metrics) {
        long sum = 0;
        Matcher line = series.matcher(metrics);
        while (line.find()) {
            double value = Double.parseDouble(line.group(1));
            sum += value > 0 ? (long) value : 0;
        }
        return sum;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
