package io.outpost.e2e;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;

import io.outpost.model.Topics;
import io.outpost.testsupport.FreePorts;
import io.outpost.testsupport.KafkaCluster;
import io.outpost.testsupport.ReplicatedBackingServices;
import io.outpost.testsupport.local.OutpostStack;

/**
 * The packaged services behind their gateway on backing services of the prod overlay's shape
 * ({@link ReplicatedBackingServices}: three Kafka nodes, a PostgreSQL primary with a synchronous standby behind one
 * address), with {@link E2eStack}'s clients; started once, on first use, for the fault tests of that shape, which
 * share it. Every other end-to-end test uses {@link E2eStack} on the single broker and server.
 */
final class FaultStack {

    private static OutpostStack stack;

    private FaultStack() {
    }

    static synchronized OutpostStack get() {
        if (stack == null) {
            stack = E2eStack.launch(backing().addresses(), "fault-stack", FreePorts.pick());
        }
        return stack;
    }

    static ReplicatedBackingServices backing() {
        return ReplicatedBackingServices.shared();
    }

    static KafkaCluster kafka() {
        return backing().kafka();
    }

    /** The partition of {@code topic} a record keyed {@code key} goes to, as the producers' partitioner picks it. */
    static int partitionOf(String key) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8)))
                % ReplicatedBackingServices.PARTITIONS;
    }

    /** The node leading the partition of {@code topic} that {@code key} goes to. */
    static int leaderOf(String topic, String key) {
        return kafka().leader(topic, partitionOf(key));
    }

    /**
     * Whether consumer group {@code group} has committed, on the partition of {@code player-notifications} that
     * {@code key} goes to, everything written there (a record read again after a restart would be past it).
     */
    static boolean committedToEnd(String group, String key) throws Exception {
        TopicPartition partition = new TopicPartition(Topics.PLAYER_NOTIFICATIONS, partitionOf(key));
        try (Admin admin = kafka().admin()) {
            OffsetAndMetadata committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                    .get(10, TimeUnit.SECONDS).get(partition);
            long end = admin.listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition)
                    .get(10, TimeUnit.SECONDS).offset();
            return committed != null && committed.offset() >= end;
        }
    }

    /** A new sandbox whose transactions go to a partition that {@code node} leads. */
    static UUID sandboxLedBy(int node) {
        int[] leaders = kafka().leaders(Topics.SANDBOX_CONFIG_TRANSACTIONS);
        for (int attempt = 0; attempt < 1_000; attempt++) {
            UUID sandbox = UUID.randomUUID();
            if (leaders[partitionOf(sandbox.toString())] == node) {
                return sandbox;
            }
        }
        throw new IllegalStateException("node " + node + " leads no partition of " + Topics.SANDBOX_CONFIG_TRANSACTIONS);
    }

    /** The index in {@link E2eStack#PLAYERS}, among {@code candidates}, of a player whose partition {@code node} leads. */
    static int playerLedBy(int node, List<Integer> candidates) {
        int[] leaders = kafka().leaders(Topics.PLAYER_NOTIFICATIONS);
        IntPredicate led = i -> leaders[partitionOf(E2eStack.PLAYERS.get(i).toString())] == node;
        return candidates.stream().mapToInt(Integer::intValue).filter(led).findFirst()
                .orElseThrow(() -> new IllegalStateException("no player of " + candidates + " on node " + node));
    }
}
