package io.outpost.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Three {@link KafkaBroker}s in one KRaft quorum (each node broker and controller, in a JVM of its own), shaped as
 * the prod overlay's cluster: replication factor 3 and {@code min.insync.replicas} 2 for every topic, the internal
 * ones included, and the brokers' other settings at Kafka's defaults (a lost broker is fenced, and its partitions
 * get new leaders, {@code broker.session.timeout.ms} = 9 s after its last heartbeat). Fault tests kill
 * ({@link KafkaBroker#kill}), freeze ({@link KafkaBroker#pause}) and restart single nodes.
 */
public final class KafkaCluster implements AutoCloseable {

    public static final int NODES = 3;
    private static final Duration WAIT = Duration.ofSeconds(120);

    private final List<KafkaBroker> brokers;

    private KafkaCluster(List<KafkaBroker> brokers) {
        this.brokers = brokers;
    }

    /** Formats and starts three nodes under {@code directory} on free ports; returns once all three are registered. */
    public static KafkaCluster start(Path directory) throws IOException {
        int[][] ports = new int[NODES][];
        List<String> voters = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            ports[i] = new int[] { FreePorts.pick(), FreePorts.pick(), FreePorts.pick() };
            voters.add(BrokerConfig.voter(i + 1, ports[i][2]));
        }
        String clusterId = KafkaBroker.clusterId();
        List<KafkaBroker> brokers = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            brokers.add(KafkaBroker.member(directory.resolve("node-" + (i + 1)), new BrokerConfig(i + 1, ports[i][0],
                    ports[i][1], ports[i][2], String.join(",", voters), NODES), clusterId));
        }
        KafkaCluster cluster = new KafkaCluster(List.copyOf(brokers));
        // a node is ready once the quorum has a leader, which needs two of the three: they start side by side
        List<CompletableFuture<Void>> starting = brokers.stream().map(b -> CompletableFuture.runAsync(() -> {
            try {
                b.start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        })).toList();
        try {
            CompletableFuture.allOf(starting.toArray(CompletableFuture[]::new)).join();
            cluster.awaitNodes(NODES);
        } catch (CompletionException | IllegalStateException e) {
            cluster.close();
            throw new IOException("the Kafka cluster did not start: " + e.getMessage(), e);
        }
        return cluster;
    }

    /** Every node's plaintext listener, as a client's {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return brokers.stream().map(KafkaBroker::bootstrapServers).collect(Collectors.joining(","));
    }

    public List<KafkaBroker> brokers() {
        return brokers;
    }

    /** The node whose {@code node.id} is {@code id} (1 to 3). */
    public KafkaBroker broker(int id) {
        return brokers.get(id - 1);
    }

    /** An Admin client of the cluster; the caller closes it. */
    public Admin admin() {
        // started from a pool thread, the context class loader may not be the one that loaded the Kafka client
        Thread current = Thread.currentThread();
        ClassLoader previous = current.getContextClassLoader();
        current.setContextClassLoader(KafkaCluster.class.getClassLoader());
        try {
            return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000));
        } finally {
            current.setContextClassLoader(previous);
        }
    }

    /** Creates each topic (name → partitions) with the cluster's replication, unless it exists. */
    public void createTopics(Map<String, Integer> partitions) {
        try (Admin admin = admin()) {
            for (Map.Entry<String, Integer> topic : partitions.entrySet()) {
                try {
                    admin.createTopics(List.of(new NewTopic(topic.getKey(), topic.getValue(), (short) NODES)))
                            .all().get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("cannot create " + topic.getKey(), e.getCause());
                    }
                }
            }
        } catch (Exception e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
    }

    /** The {@code node.id} leading each partition of {@code topic}, by partition (-1: none). */
    public int[] leaders(String topic) {
        try (Admin admin = admin()) {
            List<TopicPartitionInfo> partitions = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(10, TimeUnit.SECONDS).get(topic).partitions();
            return partitions.stream().mapToInt(p -> p.leader() == null || p.leader().isEmpty() ? -1 : p.leader().id())
                    .toArray();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot describe " + topic, e);
        }
    }

    /**
     * The {@code node.id}s holding a replica of a partition, in their assignment's order: the order in which the
     * controller picks a new leader among those in sync.
     */
    public List<Integer> replicas(String topic, int partition) {
        try (Admin admin = admin()) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
                    .partitions().get(partition).replicas().stream().map(Node::id).toList();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot describe " + topic, e);
        }
    }

    /** The {@code node.id} leading a partition; -1 while it has none (its leader lost and not yet replaced). */
    public int leader(String topic, int partition) {
        try (Admin admin = admin()) {
            return leader(admin, topic, partition);
        }
    }

    /** The same with the caller's Admin client; -1 also when the cluster did not answer within 5 s. */
    public static int leader(Admin admin, String topic, int partition) {
        try {
            TopicDescription described = admin.describeTopics(List.of(topic)).allTopicNames().get(5, TimeUnit.SECONDS)
                    .get(topic);
            Node leader = described.partitions().get(partition).leader();
            return leader == null || leader.isEmpty() ? -1 : leader.id();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (Exception unanswered) {
            return -1;
        }
    }

    /**
     * Waits until every partition of every topic has all three nodes in sync (a restarted or thawed node has
     * caught up), so that the next fault meets a whole cluster.
     */
    public void awaitInSync() {
        long deadline = System.nanoTime() + WAIT.toNanos();
        try (Admin admin = admin()) {
            while (true) {
                try {
                    Collection<String> topics = admin.listTopics().names().get(10, TimeUnit.SECONDS);
                    boolean whole = admin.describeTopics(topics).allTopicNames().get(10, TimeUnit.SECONDS).values()
                            .stream().flatMap(t -> t.partitions().stream()).map(TopicPartitionInfo::isr)
                            .allMatch(isr -> isr.size() == NODES);
                    if (whole) {
                        return;
                    }
                } catch (ExecutionException | java.util.concurrent.TimeoutException notYet) {
                    // a node is still rejoining
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the Kafka cluster's partitions not all in sync within " + WAIT);
                }
                Thread.sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Waits until {@code count} nodes are registered with the quorum's controller. */
    private void awaitNodes(int count) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        try (Admin admin = admin()) {
            while (true) {
                try {
                    if (admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size() >= count) {
                        return;
                    }
                } catch (ExecutionException | java.util.concurrent.TimeoutException notYet) {
                    // the quorum is still electing its leader
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("fewer than " + count + " Kafka nodes registered within " + WAIT);
                }
                Thread.sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Stops every node (a paused or killed one included); their data stays in their folders. */
    @Override
    public void close() {
        brokers.parallelStream().forEach(KafkaBroker::stop);
    }
}
