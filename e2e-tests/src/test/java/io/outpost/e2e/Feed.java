package io.outpost.e2e;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.RecordMetadata;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

import io.outpost.model.Topics;
import io.outpost.model.event.ConfigTransactionEvent;
import io.outpost.model.event.NotificationEvent;
import io.outpost.testsupport.TestKafka;

/**
 * Producers that keep publishing while a fault test breaks something: every 100 ms one notification for a
 * player and one role transaction for a sandbox, straight to Kafka. While the broker is away the producer keeps
 * them and sends them, once and in order, when it is back. Remembers what it sent, in order.
 */
final class Feed implements AutoCloseable {

    static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

    private final TestKafka kafka;
    private final UUID player;
    private final UUID sandbox;
    private final UUID role = UUID.randomUUID();
    private final List<String> messages = new ArrayList<>();
    private final List<String> transactions = new ArrayList<>();
    private final List<Future<RecordMetadata>> sends = new ArrayList<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "e2e-feed");
        thread.setDaemon(true);
        return thread;
    });

    Feed(UUID player, UUID sandbox) {
        this(player, sandbox, new TestKafka());
    }

    /** A feed to another cluster ({@link FaultStack}'s), through {@code kafka} (closed with the feed). */
    Feed(UUID player, UUID sandbox, TestKafka kafka) {
        this.player = player;
        this.sandbox = sandbox;
        this.kafka = kafka;
    }

    Feed start() {
        timer.scheduleAtFixedRate(this::publishOne, 0, 100, TimeUnit.MILLISECONDS);
        return this;
    }

    synchronized int sent() {
        return messages.size();
    }

    /** Stops publishing and waits until the broker has acknowledged everything sent. */
    void stop() throws Exception {
        timer.shutdown();
        if (!timer.awaitTermination(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the feed did not stop");
        }
        List<Future<RecordMetadata>> all;
        synchronized (this) {
            all = List.copyOf(sends);
        }
        for (Future<RecordMetadata> send : all) {
            send.get(120, TimeUnit.SECONDS);
        }
    }

    /** The messages of the notifications sent, in order. */
    synchronized List<String> messages() {
        return List.copyOf(messages);
    }

    /** The ids of the transactions sent, in order. */
    synchronized List<String> transactionIds() {
        return List.copyOf(transactions);
    }

    @Override
    public void close() {
        timer.shutdownNow();
        kafka.close();
    }

    private synchronized void publishOne() {
        int n = messages.size();
        String message = "feed " + n;
        String transaction = UUID.randomUUID().toString();
        try {
            sends.add(kafka.sendAsync(Topics.PLAYER_NOTIFICATIONS, player.toString(), JSON.writeValueAsString(
                    new NotificationEvent(player.toString(), message, null, null, null, null, null))));
            sends.add(kafka.sendAsync(Topics.SANDBOX_CONFIG_TRANSACTIONS, sandbox.toString(),
                    roleTransaction(transaction, sandbox, role, n)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        messages.add(message);
        transactions.add(transaction);
    }

    /** The value of the {@code n}-th transaction (from 0) of {@code role} in {@code sandbox}, as a producer sends it. */
    static String roleTransaction(String transactionId, UUID sandbox, UUID role, int n) throws JsonProcessingException {
        return JSON.writeValueAsString(new ConfigTransactionEvent(transactionId, sandbox.toString(),
                ConfigTransactionEvent.ROLE, role.toString(), (long) n, "e2e-feed", Instant.now(),
                n == 0 ? "create" : "update", "v" + n, null, JSON.createObjectNode().put("name", "role " + n)));
    }
}
