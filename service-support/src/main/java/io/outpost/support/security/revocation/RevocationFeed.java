package io.outpost.support.security.revocation;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.model.error.ErrorDetail;
import io.outpost.support.json.JsonBinding;
import io.outpost.support.kafka.KafkaClientSettings;
import io.outpost.support.security.SecurityConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;

/**
 * Reads the revocation topic into the {@link RevocationList}: a consumer of its own on a thread of its own, with
 * every partition assigned and read from the beginning (no consumer group, nothing committed — every replica
 * needs every record, and the compacted topic holds only what still matters). Not built on the ingest plumbing:
 * nothing here is stored, retried or dead-lettered. Without a group it needs only {@code Read} on the topic (the
 * prod overlay's ACLs); TLS/SASL settings come from {@code kafka.*} ({@link KafkaClientSettings}).
 *
 * <p>While Kafka is unreachable the list keeps what it knows and tokens are otherwise accepted (fail open, see
 * docs/auth.md); the gauge {@code outpost_auth_revocation_feed_connected} shows it, and records published
 * meanwhile arrive when Kafka returns.
 *
 * <p>Records are read as bytes and each value by {@link JsonBinding}, as the ingests read theirs: a record that is
 * not one auth-service writes is applied not at all — never in part, never with U+FFFD in place of bytes that are
 * not UTF-8 — but logged with its position and why ({@code revocation feed: ignored an unreadable record at
 * <topic>-<partition>@<offset>: value: …}), and the feed reads on. So is a record whose key is not the one
 * auth-service gives its value ({@link Revocation#key()}: {@code token:<jti>}, {@code client:<client_id>}).
 */
@Singleton
public class RevocationFeed {

    private static final Logger LOG = Logger.getLogger(RevocationFeed.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(3);
    private static final long CHECK_EVERY_NANOS = Duration.ofSeconds(5).toNanos();
    /** While the topic does not exist yet (auth-service creates it), it is looked for more often. */
    private static final long LOOK_EVERY_NANOS = Duration.ofSeconds(1).toNanos();
    /** Where a record's faults are located, as in the ingests' dead-letter reasons ({@code value.jti: …}). */
    private static final List<Object> VALUE = ErrorDetail.loc("value");
    /** The faults of one record named in its log line (a document may hold up to {@link JsonBinding#MAX_FAULTS}). */
    private static final int LOGGED_FAULTS = 5;
    private static final String NOT_A_REVOCATION =
            "value: not a revocation (type token with a jti, or client with a client_id and issued_before; expires_at)";
    /**
     * Compaction keeps the last record of each key, and a tombstone forgets by key: a record under another key than
     * its value's would be dropped or outlived by records about something else, so that replicas started at other
     * times would disagree about it.
     */
    private static final String NOT_ITS_KEY = "key: not the value's own (token:<jti>, or client:<client_id>)";

    private final SecurityConfig config;
    private final RevocationList list;
    private final ObjectMapper json;
    private final Optional<String> bootstrap;
    private final String application;
    private final AtomicLong connected = new AtomicLong();
    private final AtomicLong lag = new AtomicLong(-1);
    private volatile boolean running;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private Thread thread;

    public RevocationFeed(SecurityConfig config, RevocationList list, ObjectMapper json, MeterRegistry registry,
            @ConfigProperty(name = "kafka.bootstrap.servers") Optional<String> bootstrap,
            @ConfigProperty(name = "quarkus.application.name", defaultValue = "outpost") String application) {
        this.config = config;
        this.list = list;
        this.json = json;
        this.bootstrap = bootstrap;
        this.application = application;
        Gauge.builder("outpost.auth.revocation.feed.connected", connected, AtomicLong::get)
                .description("1 while the revocation topic answers, 0 while it does not (tokens are then accepted "
                        + "unless already known revoked)").register(registry);
        Gauge.builder("outpost.auth.revocation.feed.lag", lag, AtomicLong::get)
                .description("Revocation records not yet read (-1: unknown)").register(registry);
    }

    void onStart(@Observes StartupEvent event) {
        if (!config.revocation().enabled()) {
            return;
        }
        if (bootstrap.isEmpty()) {
            LOG.warn("kafka.bootstrap.servers is not set: revoked tokens are not refused");
            return;
        }
        running = true;
        thread = new Thread(this::run, "outpost-revocation-feed");
        thread.setDaemon(true);
        thread.start();
    }

    void onStop(@Observes ShutdownEvent event) {
        running = false;
        KafkaConsumer<byte[], byte[]> current = consumer;
        if (current != null) {
            current.wakeup();
        }
        if (thread != null) {
            try {
                thread.join(Duration.ofSeconds(5).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Whether the topic answered at the last check (every few seconds). */
    public boolean connected() {
        return connected.get() == 1;
    }

    private void run() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap.get());
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, application + "-revocations");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        props.putAll(KafkaClientSettings.configured());
        String topic = config.revocation().topic();
        try (KafkaConsumer<byte[], byte[]> kafka = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer = kafka;
            Set<TopicPartition> assigned = new HashSet<>();
            long nextCheck = 0;
            while (running) {
                try {
                    if (System.nanoTime() - nextCheck >= 0) {
                        check(kafka, topic, assigned);
                        nextCheck = System.nanoTime() + (assigned.isEmpty() ? LOOK_EVERY_NANOS : CHECK_EVERY_NANOS);
                    }
                    if (assigned.isEmpty()) {
                        Thread.sleep(POLL.toMillis());
                        continue;
                    }
                    for (ConsumerRecord<byte[], byte[]> record : kafka.poll(POLL)) {
                        apply(record);
                    }
                } catch (WakeupException e) {
                    break;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                } catch (RuntimeException e) {
                    connected.set(0);
                    LOG.warnf("revocation feed: %s", e.toString());
                    nextCheck = System.nanoTime() + CHECK_EVERY_NANOS;
                }
            }
        } finally {
            consumer = null;
        }
    }

    /** Assigns new partitions (read from the beginning) and measures how far behind the feed is. */
    private void check(KafkaConsumer<byte[], byte[]> kafka, String topic, Set<TopicPartition> assigned) {
        try {
            List<PartitionInfo> infos = kafka.partitionsFor(topic, METADATA_TIMEOUT);
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : infos == null ? List.<PartitionInfo>of() : infos) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            if (!assigned.containsAll(partitions)) {
                List<TopicPartition> fresh = partitions.stream().filter(p -> !assigned.contains(p)).toList();
                assigned.addAll(fresh);
                kafka.assign(List.copyOf(assigned));
                kafka.seekToBeginning(fresh);
                LOG.infof("revocation feed: reading %s from the beginning", fresh);
            }
            if (!assigned.isEmpty()) {
                Map<TopicPartition, Long> ends = kafka.endOffsets(assigned, METADATA_TIMEOUT);
                long behind = 0;
                for (TopicPartition partition : assigned) {
                    behind += Math.max(0, ends.getOrDefault(partition, 0L) - kafka.position(partition, METADATA_TIMEOUT));
                }
                lag.set(behind);
            }
            connected.set(1);
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            if (connected.getAndSet(0) == 1) {
                LOG.warnf("revocation feed: Kafka does not answer (%s); known revocations still apply", e.getMessage());
            }
        }
    }

    /**
     * Applies one record, or logs it with its position and why it is not one auth-service writes, and goes on to the
     * next: a record is applied whole or not at all. The value is read by {@link JsonBinding}, as every Kafka value
     * of the services is: bytes that are not UTF-8 JSON text (malformed UTF-8, a 0x00 byte), a key given twice, a key
     * holding U+0000, a value of the wrong JSON type, a document past the parser's limits are each refused by name;
     * then the record must hold what its type needs ({@link Revocation#wellFormed}), under its own key, read as
     * strictly as a tombstone's: a key that is not UTF-8 forgets nothing, and matches no value.
     */
    private void apply(ConsumerRecord<byte[], byte[]> record) {
        if (record.key() == null) {
            return;
        }
        String why;
        try {
            why = applied(record);
        } catch (RuntimeException e) { // nothing foreseen throws: still, one record never stops the feed
            why = e.toString();
        }
        if (why != null) {
            LOG.warnf("revocation feed: ignored an unreadable record at %s-%d@%d: %s", record.topic(),
                    record.partition(), record.offset(), why);
        }
    }

    /** Null when the record was applied; else why it was not. */
    private String applied(ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null) {
            String key = strictUtf8(record.key());
            if (key == null) {
                return "key: not UTF-8";
            }
            list.forget(key);
            return null;
        }
        JsonBinding.Read<Revocation> read = JsonBinding.read(json, record.value(), Revocation.class, VALUE);
        List<ErrorDetail> faults = read.faults();
        if (!faults.isEmpty()) {
            return faults.stream().limit(LOGGED_FAULTS).map(ErrorDetail::describe).collect(Collectors.joining("; "))
                    + (faults.size() > LOGGED_FAULTS ? "; and " + (faults.size() - LOGGED_FAULTS) + " more" : "");
        }
        if (read.value() == null || !read.value().wellFormed()) {
            return NOT_A_REVOCATION;
        }
        if (!read.value().key().equals(strictUtf8(record.key()))) {
            return NOT_ITS_KEY;
        }
        list.apply(read.value());
        return null;
    }

    /** {@code bytes} as UTF-8; null when they are not well-formed UTF-8 (a new decoder reports, never replaces). */
    private static String strictUtf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
