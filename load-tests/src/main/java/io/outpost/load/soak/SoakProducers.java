package io.outpost.load.soak;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

import io.outpost.model.Topics;
import io.outpost.model.event.ConfigTransactionEvent;

/**
 * The soak's producers, as the prod overlay's are configured (acks=all, idempotent): notifications at a steady
 * rate, round the players, each numbered for the {@link SoakLedger}; role transactions at their own rate, round the
 * sandboxes, each sandbox's acknowledged ones remembered in order. Both tick every 10 ms.
 */
final class SoakProducers implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

    private final KafkaProducer<String, String> producer;
    private final List<UUID> players;
    private final SoakLedger ledger;
    private final List<UUID> sandboxes;
    private final List<List<String>> acked = new ArrayList<>();
    private final int[] versions;
    private final UUID role = UUID.randomUUID();
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
    private final int perTick;
    private final int historyPerTick;
    private int nextPlayer;
    private int nextSandbox;
    private double carry;

    SoakProducers(String bootstrap, List<UUID> players, SoakLedger ledger, List<UUID> sandboxes, int rate,
            int historyRate) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        this.producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
        this.players = players;
        this.ledger = ledger;
        this.sandboxes = sandboxes;
        this.versions = new int[sandboxes.size()];
        sandboxes.forEach(s -> acked.add(new ArrayList<>()));
        this.perTick = rate / 100;
        this.historyPerTick = historyRate;
    }

    SoakProducers start() {
        ticker.scheduleAtFixedRate(this::tick, 0, 10, TimeUnit.MILLISECONDS);
        return this;
    }

    private void tick() {
        long now = System.nanoTime();
        for (int i = 0; i < perTick; i++) {
            int p = nextPlayer;
            nextPlayer = (nextPlayer + 1) % players.size();
            int number = ledger.next(p);
            String player = players.get(p).toString();
            String value = "{\"player_uuid\":\"" + player + "\",\"message\":\"" + number + " " + now
                    + "\",\"notification_id\":\"soak-" + p + "-" + number + "\"}";
            producer.send(new ProducerRecord<>(Topics.PLAYER_NOTIFICATIONS, player, value), (metadata, failure) -> {
                if (failure == null) {
                    ledger.acked(p, number);
                } else {
                    ledger.sendFailures.incrementAndGet();
                }
            });
        }
        carry += historyPerTick / 100.0;
        for (; carry >= 1; carry--) {
            int s = nextSandbox;
            nextSandbox = (nextSandbox + 1) % sandboxes.size();
            String id = UUID.randomUUID().toString();
            int version = versions[s]++;
            producer.send(new ProducerRecord<>(Topics.SANDBOX_CONFIG_TRANSACTIONS, sandboxes.get(s).toString(),
                    transaction(id, sandboxes.get(s), version)), (metadata, failure) -> {
                        if (failure == null) {
                            synchronized (acked.get(s)) {
                                acked.get(s).add(id);
                            }
                        }
                    });
        }
    }

    private String transaction(String id, UUID sandbox, int n) {
        try {
            return JSON.writeValueAsString(new ConfigTransactionEvent(id, sandbox.toString(), ConfigTransactionEvent.ROLE,
                    role.toString(), (long) n, "soak", Instant.now(), n == 0 ? "create" : "update", "v" + n, null,
                    JSON.createObjectNode().put("name", "role " + n)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The transactions of sandbox {@code s} Kafka acknowledged, in the order sent. */
    List<String> acked(int s) {
        synchronized (acked.get(s)) {
            return List.copyOf(acked.get(s));
        }
    }

    /** Stops sending and waits until everything sent is acknowledged or failed. */
    void stop() throws InterruptedException {
        ticker.shutdown();
        ticker.awaitTermination(10, TimeUnit.SECONDS);
        producer.flush();
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        producer.close();
    }
}
