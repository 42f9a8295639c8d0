package io.outpost.support.security.revocation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

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
 * <p>A replica that has just started knows no revocation yet: until the feed has read every partition to the end
 * offsets it found at its first contact with Kafka it is {@linkplain #caughtUp() not caught up}, the service is not
 * ready ({@link RevocationReadinessCheck}) and the verifier answers 503 rather than accept a token it cannot check.
 * Start-up waits for that up to {@code outpost.security.revocation.startup-timeout}; past it the service starts,
 * still unready, and logs why. Once caught up, a later outage fails open: the list keeps what it knows and tokens
 * are otherwise accepted (docs/auth.md, "Revocation"); the gauge {@code outpost_auth_revocation_feed_connected}
 * shows it, and records published meanwhile arrive when Kafka returns.
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
    private final SecurityConfig config;
    private final RevocationRecords records;
    private final Optional<String> bootstrap;
    private final String application;
    private final AtomicLong connected = new AtomicLong();
    private final AtomicLong lag = new AtomicLong(-1);
    private final long startedNanos = System.nanoTime();
    /** The end offsets at the first contact with Kafka: read to these, the feed knows what was revoked before it. */
    private volatile Map<TopicPartition, Long> startEnds;
    private volatile boolean caughtUp;
    private volatile String lastFault = "no answer yet";
    private volatile boolean running;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private Thread thread;

    public RevocationFeed(SecurityConfig config, RevocationList list, ObjectMapper json, MeterRegistry registry,
            @ConfigProperty(name = "kafka.bootstrap.servers") Optional<String> bootstrap,
            @ConfigProperty(name = "quarkus.application.name", defaultValue = "outpost") String application) {
        this.config = config;
        this.records = new RevocationRecords(list, json);
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
            caughtUp = true;
            return;
        }
        if (bootstrap.isEmpty()) {
            LOG.warn("kafka.bootstrap.servers is not set: revoked tokens are not refused");
            caughtUp = true;
            return;
        }
        running = true;
        thread = new Thread(this::run, "outpost-revocation-feed");
        thread.setDaemon(true);
        thread.start();
        long deadline = startedNanos + config.revocation().startupTimeout().toNanos();
        synchronized (this) {
            while (!caughtUp && System.nanoTime() - deadline < 0) {
                try {
                    wait(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        if (!caughtUp) {
            LOG.warnf("revocation feed: %s; not ready, and bearer requests are answered 503 until it is read",
                    notCaughtUpReason());
        }
    }

    /**
     * Whether the feed has read the revocation topic to the end offsets it found at start (always, once it has; and
     * when revocation is off or no Kafka is configured): until then no token can be checked against revocations.
     */
    public boolean caughtUp() {
        return caughtUp;
    }

    /** Why the feed is not caught up, for the readiness body and the log, e.g. {@code Kafka has not answered …}. */
    public String notCaughtUpReason() {
        long seconds = Duration.ofNanos(System.nanoTime() - startedNanos).toSeconds();
        Duration bound = config.revocation().startupTimeout();
        if (startEnds == null) {
            return "the revocation topic is not read yet: Kafka has not answered for " + seconds + " s since start"
                    + (seconds >= bound.toSeconds() ? " (startup-timeout " + bound.toSeconds() + " s passed)" : "")
                    + ": " + lastFault;
        }
        return "the revocation topic is not read yet: " + Math.max(0, lag.get()) + " record(s) behind, "
                + seconds + " s since start";
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
                        records.apply(record);
                    }
                    if (!caughtUp && startEnds != null && readTo(kafka, startEnds)) {
                        markCaughtUp();
                    }
                } catch (WakeupException e) {
                    break;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                } catch (RuntimeException e) {
                    connected.set(0);
                    lastFault = e.toString();
                    LOG.warnf("revocation feed: %s", e.toString());
                    nextCheck = System.nanoTime() + CHECK_EVERY_NANOS;
                }
            }
        } finally {
            consumer = null;
        }
    }

    /** Whether every partition's position has reached its end offset at start. */
    private static boolean readTo(KafkaConsumer<byte[], byte[]> kafka, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (kafka.position(end.getKey(), METADATA_TIMEOUT) < end.getValue()) {
                return false;
            }
        }
        return true;
    }

    private synchronized void markCaughtUp() {
        caughtUp = true;
        notifyAll();
        LOG.infof("revocation feed: read the revocation topic to its end in %d ms: ready to check tokens",
                Duration.ofNanos(System.nanoTime() - startedNanos).toMillis());
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
            if (assigned.isEmpty() && !caughtUp) {
                markCaughtUp(); // Kafka answers and the topic does not exist yet: there is no revocation to know
            }
            if (!assigned.isEmpty()) {
                Map<TopicPartition, Long> ends = kafka.endOffsets(assigned, METADATA_TIMEOUT);
                if (startEnds == null) {
                    startEnds = Map.copyOf(ends);
                }
                long behind = 0;
                for (TopicPartition partition : assigned) {
                    behind += Math.max(0, ends.getOrDefault(partition, 0L) - kafka.position(partition, METADATA_TIMEOUT));
                }
                lag.set(behind);
            }
            connected.set(1);
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            lastFault = "Kafka does not answer (" + e.getMessage() + ")";
            if (connected.getAndSet(0) == 1) {
                LOG.warnf("revocation feed: Kafka does not answer (%s); known revocations still apply", e.getMessage());
            }
        }
    }
}
