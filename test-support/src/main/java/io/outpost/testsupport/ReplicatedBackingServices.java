package io.outpost.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.outpost.model.Topics;

/**
 * The backing services in the prod overlay's shape, for fault tests of that shape: a {@link KafkaCluster} of
 * three nodes and a {@link PostgresPair} (a primary, a synchronous standby, one address moved on failover),
 * started side by side. The single broker and server of {@link BackingServices} stay what every other test
 * uses; a test JVM starts this set at most once ({@link #shared()}), for the fault tests that share it.
 */
public final class ReplicatedBackingServices implements AutoCloseable {

    /** Partitions of each topic of Outpost's (the single broker's {@code num.partitions}; 12 on the prod overlay). */
    public static final int PARTITIONS = 4;

    private static ReplicatedBackingServices shared;

    private final KafkaCluster kafka;
    private final PostgresPair postgres;

    private ReplicatedBackingServices(KafkaCluster kafka, PostgresPair postgres) {
        this.kafka = kafka;
        this.postgres = postgres;
    }

    /** The one set of this JVM, in a temporary folder, stopped (and deleted) when the JVM exits. */
    public static synchronized ReplicatedBackingServices shared() {
        if (shared == null) {
            try {
                Path work = Files.createTempDirectory("outpost-replicated-");
                ReplicatedBackingServices started = start(work);
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    started.close();
                    BackingServices.deleteTree(work);
                }, "outpost-replicated-stop"));
                System.out.println("[outpost-test] replicated backing services: PostgreSQL "
                        + started.postgres.connection().reactiveUrl() + " (primary " + started.postgres.primary().port()
                        + ", standby " + started.postgres.standby().port() + "), Kafka " + started.kafka.bootstrapServers());
                shared = started;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return shared;
    }

    /** Starts the cluster and the pair (synchronous) under {@code directory}; creates Outpost's topics. */
    public static ReplicatedBackingServices start(Path directory) throws IOException {
        CompletableFuture<KafkaCluster> kafka = CompletableFuture.supplyAsync(() -> {
            try {
                return KafkaCluster.start(directory.resolve("kafka"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        CompletableFuture<PostgresPair> postgres = CompletableFuture.supplyAsync(() -> {
            try {
                return PostgresPair.start(directory.resolve("postgres"), true);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            CompletableFuture.allOf(kafka, postgres).join();
        } catch (CompletionException e) {
            kafka.thenAccept(KafkaCluster::close);
            postgres.thenAccept(PostgresPair::close);
            throw new IOException("could not start the replicated backing services: " + e.getCause().getMessage(),
                    e.getCause());
        }
        Map<String, Integer> topics = new LinkedHashMap<>();
        for (String topic : new String[] { Topics.PLAYER_NOTIFICATIONS, Topics.SANDBOX_CONFIG_TRANSACTIONS }) {
            topics.put(topic, PARTITIONS);
            topics.put(topic + Topics.DLQ_SUFFIX, PARTITIONS);
        }
        kafka.join().createTopics(topics);
        return new ReplicatedBackingServices(kafka.join(), postgres.join());
    }

    public KafkaCluster kafka() {
        return kafka;
    }

    public PostgresPair postgres() {
        return postgres;
    }

    /** Their addresses as the services are given them: the cluster's three nodes, the pair's one address. */
    public BackingServices addresses() {
        return BackingServices.of(postgres.connection(), kafka.bootstrapServers());
    }

    @Override
    public void close() {
        kafka.close();
        postgres.close();
    }
}
