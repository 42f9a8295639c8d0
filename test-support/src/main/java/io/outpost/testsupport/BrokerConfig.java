package io.outpost.testsupport;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The {@code server.properties} of one KRaft node (broker and controller in one JVM): alone, with replication
 * factor 1, or one of a quorum of {@code replicas} nodes whose topics are replicated {@code replicas} times with
 * {@code min.insync.replicas} 2, as on the prod overlay's three-node cluster.
 *
 * @param voters {@code controller.quorum.voters}: {@code id@127.0.0.1:port} of every controller, comma-separated
 */
record BrokerConfig(int nodeId, int port, int saslPort, int controllerPort, String voters, int replicas) {

    /** A node that is the whole cluster. */
    static BrokerConfig single(int port, int saslPort, int controllerPort) {
        return new BrokerConfig(1, port, saslPort, controllerPort, voter(1, controllerPort), 1);
    }

    /** {@code id@127.0.0.1:port}, one entry of {@code controller.quorum.voters}. */
    static String voter(int nodeId, int controllerPort) {
        return nodeId + "@127.0.0.1:" + controllerPort;
    }

    /** The configuration a node was last started with (its ports, its place in the quorum). */
    static BrokerConfig read(Path file) throws IOException {
        Properties config = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            config.load(reader);
        }
        return new BrokerConfig(Integer.parseInt(config.getProperty("node.id", "1")),
                listenerPort(config, "PLAINTEXT"), listenerPort(config, "SASL_PLAINTEXT"),
                listenerPort(config, "CONTROLLER"), config.getProperty("controller.quorum.voters"),
                Integer.parseInt(config.getProperty("default.replication.factor", "1")));
    }

    /** Writes the file for a node whose data is under {@code directory/data}. */
    void write(Path file, Path directory) throws IOException {
        int minInSync = Math.min(2, replicas);
        String properties = String.join("\n",
                "process.roles=broker,controller",
                "node.id=" + nodeId,
                "controller.quorum.voters=" + voters,
                "listeners=PLAINTEXT://127.0.0.1:" + port + ",SASL_PLAINTEXT://127.0.0.1:" + saslPort
                        + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port + ",SASL_PLAINTEXT://127.0.0.1:" + saslPort,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
                // the SASL listener authenticates with SCRAM and its users get only what ACLs grant them (as on
                // Strimzi's listener with simple authorization); the plaintext and controller listeners' anonymous
                // clients are super users, so everything else runs as before
                "sasl.enabled.mechanisms=SCRAM-SHA-512",
                "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config="
                        + "org.apache.kafka.common.security.scram.ScramLoginModule required;",
                "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users=User:ANONYMOUS",
                "allow.everyone.if.no.acl.found=false",
                "log.dirs=" + directory.resolve("data").toAbsolutePath(),
                "num.partitions=4",
                "auto.create.topics.enable=true",
                // as the prod overlay's Kafka (deploy/overlays/prod/kafka.yaml) when there are three nodes
                "default.replication.factor=" + replicas,
                "min.insync.replicas=" + minInSync,
                "offsets.topic.replication.factor=" + replicas,
                "offsets.topic.num.partitions=4",
                "transaction.state.log.replication.factor=" + replicas,
                "transaction.state.log.min.isr=" + minInSync,
                "transaction.state.log.num.partitions=4",
                "share.coordinator.state.topic.replication.factor=" + replicas,
                "share.coordinator.state.topic.min.isr=" + minInSync,
                "group.initial.rebalance.delay.ms=0",
                "");
        Files.writeString(file, properties, StandardCharsets.UTF_8);
    }

    private static int listenerPort(Properties config, String listener) throws IOException {
        String listeners = config.getProperty("listeners", "");
        for (String address : listeners.split(",")) {
            if (address.strip().startsWith(listener + "://")) {
                return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1).strip());
            }
        }
        throw new IOException("server.properties names no " + listener + " listener: " + listeners);
    }
}
