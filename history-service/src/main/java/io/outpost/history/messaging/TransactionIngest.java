package io.outpost.history.messaging;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.history.config.HistoryConfig;
import io.outpost.history.store.TransactionStore;
import io.outpost.messaging.Consumed;
import io.outpost.messaging.TopicIngest;
import io.outpost.model.Topics;
import io.outpost.model.error.ErrorDetail;
import io.outpost.model.event.ConfigTransactionEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;

/**
 * Feeds {@code sandbox-config-transactions} into the store: at least once, offsets committed after the rows
 * are durable, refused records dead-lettered with their reason (messaging-support's {@link TopicIngest}).
 */
@ApplicationScoped
public class TransactionIngest {

    private static final List<Object> SANDBOX = ErrorDetail.loc("value", "sandbox_id");

    private final TransactionStore store;
    private final ObjectMapper mapper;
    private final HistoryConfig config;
    private final String bootstrapServers;
    private volatile TopicIngest<ConfigTransactionEvent> ingest;

    public TransactionIngest(TransactionStore store, ObjectMapper mapper, HistoryConfig config,
            @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers) {
        this.store = store;
        // the shared mapper keeps a snapshot's decimals as sent (service-support's ExactNumbersCustomizer)
        this.mapper = mapper;
        this.config = config;
        this.bootstrapServers = bootstrapServers;
    }

    void start(@Observes StartupEvent started) {
        if (!config.ingestEnabled()) {
            return;
        }
        ingest = TopicIngest.builder(Topics.SANDBOX_CONFIG_TRANSACTIONS, ConfigTransactionEvent.class)
                .bootstrapServers(bootstrapServers)
                .groupId(config.consumerGroup())
                .mapper(mapper)
                .maxBatch(config.ingestBatch())
                .validator(TransactionIngest::faults)
                .store(batch -> store.append(batch.stream().map(Consumed::event).toList()).replaceWithVoid())
                .build()
                .start();
    }

    /** The running ingest, or null when this replica does not consume ({@code ingest-enabled=false}). */
    TopicIngest<ConfigTransactionEvent> ingest() {
        return ingest;
    }

    void stop(@Observes ShutdownEvent stopping) {
        TopicIngest<ConfigTransactionEvent> running = ingest;
        if (running != null) {
            running.close();
        }
    }

    /**
     * DESIGN §6 checks of the value, plus its key: the key must be the sandbox id, since per-sandbox order is
     * the order of one partition.
     */
    static List<ErrorDetail> faults(String key, ConfigTransactionEvent event) {
        List<ErrorDetail> faults = new ArrayList<>(event.validate(ErrorDetail.loc("value")));
        List<Object> at = ErrorDetail.loc("key");
        if (key == null) {
            faults.add(ErrorDetail.missing(at));
        } else if (faults.stream().noneMatch(f -> f.loc().equals(SANDBOX)) && !sameSandbox(key, event.sandboxId())) {
            faults.add(ErrorDetail.literal(at, event.sandboxId()));
        }
        return faults;
    }

    private static boolean sameSandbox(String key, String sandboxId) {
        try {
            return UUID.fromString(key).equals(UUID.fromString(sandboxId));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
