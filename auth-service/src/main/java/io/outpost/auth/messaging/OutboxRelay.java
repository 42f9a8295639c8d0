package io.outpost.auth.messaging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.auth.config.AuthConfig;
import io.outpost.support.kafka.KafkaClientSettings;
import io.outpost.support.store.StoreConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Publishes the outbox ({@code auth.outbox}: revocations and audit events written with the changes they report) to
 * Kafka and deletes what the broker acknowledged: right after each change ({@link #kick()}) and every
 * {@code events.outbox-interval}, on a thread of its own. While Kafka is away the records wait in PostgreSQL
 * (gauges {@code outpost_auth_outbox_pending} and {@code outpost_auth_outbox_oldest_age_seconds}, which the prod
 * overlay's alerts watch); a record published twice (two replicas, a crash before the delete)
 * is harmless, since both topics are read by key. Creates its topics when they are missing ({@link EventTopics}).
 * TLS/SASL settings come from {@code kafka.*} ({@link KafkaClientSettings}).
 */
@Singleton
public class OutboxRelay {

    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);
    private static final int BATCH = 500;
    private static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(10);

    private final Pool pool;
    private final AuthConfig config;
    private final Duration storeTimeout;
    private final Optional<String> bootstrap;
    private final AtomicBoolean queued = new AtomicBoolean();
    private volatile Backlog backlog = new Backlog(-1, 0, System.nanoTime());
    private ScheduledExecutorService thread;
    private KafkaProducer<String, String> producer;
    private boolean topicsReady;
    private boolean failing;

    public OutboxRelay(Pool pool, AuthConfig config, StoreConfig store, MeterRegistry registry,
            @ConfigProperty(name = "kafka.bootstrap.servers") Optional<String> bootstrap) {
        this.pool = pool;
        this.config = config;
        this.storeTimeout = store.queryTimeout();
        this.bootstrap = bootstrap;
        Gauge.builder("outpost.auth.outbox.pending", this, relay -> relay.backlog.records())
                .description("Revocation and audit records not yet acknowledged by Kafka (-1: not measured yet)")
                .register(registry);
        Gauge.builder("outpost.auth.outbox.oldest.age", this, relay -> relay.backlog.oldestAgeSeconds())
                .baseUnit("seconds")
                .description("How long the oldest record not yet acknowledged by Kafka has waited (0: none waits)")
                .register(registry);
    }

    void onStart(@Observes StartupEvent event) {
        if (bootstrap.isEmpty()) {
            LOG.warn("kafka.bootstrap.servers is not set: revocations and audit events stay in auth.outbox");
            return;
        }
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap.get());
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "auth-service-outbox");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) KAFKA_TIMEOUT.toMillis());
        props.putAll(KafkaClientSettings.configured());
        producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
        thread = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread relay = new Thread(task, "outpost-outbox-relay");
            relay.setDaemon(true);
            return relay;
        });
        long every = config.events().outboxInterval().toMillis();
        thread.scheduleWithFixedDelay(this::relay, 0, every, TimeUnit.MILLISECONDS);
    }

    void onStop(@Observes ShutdownEvent event) {
        if (thread != null) {
            thread.shutdownNow();
            producer.close(Duration.ofSeconds(2));
        }
    }

    /** Publishes now what was just committed (coalesced: at most one extra pass waits). */
    public void kick() {
        if (thread != null && queued.compareAndSet(false, true)) {
            thread.execute(() -> {
                queued.set(false);
                relay();
            });
        }
    }

    private void relay() {
        try {
            ensureTopics();
            int sent;
            do {
                sent = publishBatch();
            } while (sent == BATCH);
            if (failing) {
                LOG.info("outbox relay: publishing again");
                failing = false;
            }
        } catch (RuntimeException | ExecutionException | TimeoutException e) {
            if (!failing) {
                LOG.warnf("outbox relay: records wait in auth.outbox (%s)", e.toString());
                failing = true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        measureBacklog();
    }

    /** After every pass, failed ones included: while Kafka is away is when the backlog matters (alerts). */
    private void measureBacklog() {
        try {
            Row row = pool.query("SELECT count(*), COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 "
                    + "FROM auth.outbox").execute().await().atMost(storeTimeout).iterator().next();
            backlog = new Backlog(row.getLong(0), row.getDouble(1), System.nanoTime());
        } catch (RuntimeException e) {
            LOG.debugf("outbox relay: could not count auth.outbox (%s)", e.toString());
        }
    }

    /**
     * The outbox at the last measurement. The oldest record's age keeps growing between measurements, so that a
     * relay stuck in a pass still shows its backlog ageing; measured in PostgreSQL's clock, against which
     * {@code created_at} was written.
     */
    private record Backlog(long records, double ageAtMeasurement, long measuredAtNanos) {

        double oldestAgeSeconds() {
            return records > 0 ? ageAtMeasurement + (System.nanoTime() - measuredAtNanos) / 1e9 : 0;
        }
    }

    private int publishBatch() throws InterruptedException, ExecutionException, TimeoutException {
        List<Long> ids = new ArrayList<>();
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        for (Row row : pool.preparedQuery("SELECT id, topic, record_key, record_value FROM auth.outbox ORDER BY id "
                + "LIMIT " + BATCH).execute().await().atMost(storeTimeout)) {
            ids.add(row.getLong("id"));
            acks.add(producer.send(new ProducerRecord<>(row.getString("topic"), row.getString("record_key"),
                    row.getString("record_value"))));
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get(KAFKA_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        if (!ids.isEmpty()) {
            pool.preparedQuery("DELETE FROM auth.outbox WHERE id = ANY($1)")
                    .execute(Tuple.of(ids.toArray(Long[]::new))).await().atMost(storeTimeout);
        }
        return ids.size();
    }

    private void ensureTopics() throws InterruptedException, ExecutionException, TimeoutException {
        if (topicsReady) {
            return;
        }
        Map<String, Object> settings = new HashMap<>(KafkaClientSettings.configured());
        settings.putAll(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap.get(),
                AdminClientConfig.CLIENT_ID_CONFIG, "auth-service-topics",
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) KAFKA_TIMEOUT.toMillis(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000));
        try (Admin admin = Admin.create(settings)) {
            EventTopics.ensure(admin, EventTopics.of(config), KAFKA_TIMEOUT);
        }
        topicsReady = true;
    }
}
