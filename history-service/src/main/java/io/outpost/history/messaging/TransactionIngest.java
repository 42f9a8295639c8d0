package io.outpost.history.messaging;

import java.util.List;

import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.history.config.HistoryConfig;
import io.outpost.history.store.JsonbText;
import io.outpost.history.store.TransactionStore;
import io.outpost.messaging.ConsumedTopic;
import io.outpost.messaging.Consumed;
import io.outpost.messaging.RecordKeys;
import io.outpost.model.Topics;
import io.outpost.model.error.ErrorDetail;
import io.outpost.model.event.ConfigTransactionEvent;
import io.smallrye.mutiny.Uni;

/**
 * Feeds {@code sandbox-config-transactions} into the store: at least once, offsets committed after the rows
 * are durable, refused records dead-lettered with their reason (messaging-support's {@code TopicIngest}).
 */
@Singleton
public class TransactionIngest extends ConsumedTopic<ConfigTransactionEvent> {

    private static final List<Object> VALUE = ErrorDetail.loc("value");
    private static final List<Object> VERSION = ErrorDetail.loc("value", "version");
    static final String VERSION_TOO_LARGE = "snapshot should take at most " + JsonbText.MAX_BYTES
            + " bytes written out, numbers without an exponent";

    private final TransactionStore store;
    private final int writers;

    public TransactionIngest(TransactionStore store, ObjectMapper mapper, MeterRegistry meters, HistoryConfig config,
            @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers) {
        // the shared mapper keeps a snapshot's decimals as sent (service-support's ExactNumbersCustomizer)
        super(Topics.SANDBOX_CONFIG_TRANSACTIONS, ConfigTransactionEvent.class, mapper, meters, new Settings(
                bootstrapServers, config.consumerGroup(), config.ingestBatch(), config.ingestEnabled(),
                config.ingestStoreTimeout()));
        this.store = store;
        this.writers = config.ingestWriters();
    }

    /**
     * DESIGN §6 checks of the value, the numbers of a valid one's snapshot ({@link JsonbNumbers}) and its size as
     * the store writes it back ({@link JsonbText}: DESIGN §4a, never expanded on the way out), plus its key:
     * exactly the sandbox id, since per-sandbox order is the order of one partition.
     */
    @Override
    protected List<ErrorDetail> validate(String key, ConfigTransactionEvent event) {
        List<ErrorDetail> faults = event.validate(VALUE);
        // one fault per snapshot: none when it already has one (too deep, or text the store cannot keep)
        if (event.version() != null && !atVersion(faults)) {
            ErrorDetail number = JsonbNumbers.firstFault(VERSION, event.version());
            if (number != null) {
                faults.add(number);
            } else if (JsonbText.bytes(event.version()) > JsonbText.MAX_BYTES) {
                faults.add(ErrorDetail.valueError(VERSION, VERSION_TOO_LARGE));
            }
        }
        RecordKeys.requireCanonical(faults, key, event.sandboxId());
        return faults;
    }

    private static boolean atVersion(List<ErrorDetail> faults) {
        for (ErrorDetail fault : faults) {
            if (fault.loc().size() > 1 && "version".equals(fault.loc().get(1))) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected Uni<Void> store(List<Consumed<ConfigTransactionEvent>> batch) {
        return store.append(batch.stream().map(Consumed::event).toList(), writers).replaceWithVoid();
    }
}
