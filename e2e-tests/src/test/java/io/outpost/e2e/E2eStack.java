package io.outpost.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.utils.Utils;
import org.awaitility.Awaitility;

import io.outpost.model.Permissions;
import io.outpost.testsupport.FreePorts;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.local.OutpostStack;

/**
 * The packaged services behind the gateway, started once for all end-to-end tests on free ports against the
 * test run's real PostgreSQL and Kafka, with clients registered in auth-service: a game client bound to
 * {@link #PLAYER}, a backend console holding the sandbox permissions, a backend publisher, a second game client the
 * revocation test disables, an administrator, a tools client bound to {@link #TENANT_SANDBOX}, a game client for the
 * generated client's flow, and one game client per
 * player of {@link #PLAYERS} for the fault tests ({@link #playerClient}).
 */
final class E2eStack {

    static final String GAME_CLIENT = "e2e-game";
    static final String GAME_SECRET = "e2e-game-secret-" + UUID.randomUUID();
    static final String CONSOLE_CLIENT = "e2e-console";
    static final String CONSOLE_SECRET = "e2e-console-secret-" + UUID.randomUUID();
    static final UUID PLAYER = UUID.randomUUID();
    /** A second game client, disabled by the revocation test (so no other test depends on it). */
    static final String DOOMED_CLIENT = "e2e-doomed";
    static final String DOOMED_SECRET = "e2e-doomed-secret-" + UUID.randomUUID();
    static final UUID DOOMED_PLAYER = UUID.randomUUID();
    /** A backend service that publishes to any player (notification:player:write). */
    static final String PUBLISHER_CLIENT = "e2e-publisher";
    static final String PUBLISHER_SECRET = "e2e-publisher-secret-" + UUID.randomUUID();
    static final String ADMIN_CLIENT = "e2e-admin";
    static final String ADMIN_SECRET = "e2e-admin-secret-" + UUID.randomUUID();
    /** A game client of its own for the generated client's flow (GeneratedClientEndToEndTest). */
    static final String GENERATED_CLIENT = "e2e-generated";
    static final String GENERATED_SECRET = "e2e-generated-secret-" + UUID.randomUUID();
    static final UUID GENERATED_PLAYER = UUID.randomUUID();
    /** A game studio's tools client: {@code sandbox:config:view}, bound to {@link #TENANT_SANDBOX} alone. */
    static final String TENANT_CLIENT = "e2e-tenant";
    static final String TENANT_SECRET = "e2e-tenant-secret-" + UUID.randomUUID();
    static final UUID TENANT_SANDBOX = UUID.randomUUID();
    static final List<UUID> PLAYERS = Stream.generate(UUID::randomUUID).limit(24).toList();
    static final String PLAYER_SECRET = "e2e-player-secret-" + UUID.randomUUID();
    /** auth-service's private admin API (not behind the gateway). */
    static final int ADMIN_PORT = FreePorts.pick();

    private static OutpostStack stack;

    private E2eStack() {
    }

    static synchronized OutpostStack get() {
        if (stack == null) {
            stack = launch(BackingServices.shared(), "e2e-stack", ADMIN_PORT);
        }
        return stack;
    }

    /**
     * The three services behind a gateway, on free ports, against {@code backing}, with this class's clients; in a
     * folder of the module's build directory named from {@code prefix}, beside the surefire reports (the services'
     * logs are there to read after a failed run, and the build's clean removes them). Stopped when the JVM exits.
     */
    static OutpostStack launch(BackingServices backing, String name, int adminPort) {
        OutpostStack launched;
        try {
            Path root = Path.of("").toAbsolutePath().getParent();
            Path target = Files.createDirectories(Path.of("target").toAbsolutePath());
            Path work = Files.createTempDirectory(target, name + "-");
            int[] ports = { FreePorts.pick(), FreePorts.pick(), FreePorts.pick() };
            launched = new OutpostStack(root, work.resolve("logs"), backing, ports, 0)
                    .progress(line -> System.out.println("[" + name + "] " + line))
                    .env("auth-service", "QUARKUS_CONFIG_LOCATIONS", clients(work).toString())
                    .env("auth-service", "OUTPOST_AUTH_KEYS_DEV_KEY_DIR", work.resolve("keys").toString())
                    .env("auth-service", "OUTPOST_AUTH_ADMIN_PORT", Integer.toString(adminPort))
                    // the stack's clients are hashed and checked with a cheap PBKDF2: at the production
                    // 210,000 iterations auth-service's start hashed the 20 clients one after the other
                    // (~14 s of the stack's start) and each client's first token cost a slow check. No test
                    // here is about the KDF's cost; auth-service's own tests keep the production setting.
                    .env("auth-service", "OUTPOST_AUTH_SECRETS_PBKDF2_ITERATIONS", "1000")
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(launched::close, name + "-stop"));
        return launched;
    }

    private static Path clients(Path work) throws IOException {
        Properties props = new Properties();
        client(props, GAME_CLIENT, GAME_SECRET, PLAYER, Permissions.NOTIFICATION_PLAYER_SELF_ALL,
                Permissions.SANDBOX_CONFIG_VIEW);
        client(props, CONSOLE_CLIENT, CONSOLE_SECRET, null, Permissions.SANDBOX_CONFIG_EDIT);
        client(props, DOOMED_CLIENT, DOOMED_SECRET, DOOMED_PLAYER, Permissions.NOTIFICATION_PLAYER_SELF_ALL,
                Permissions.SANDBOX_CONFIG_VIEW);
        client(props, ADMIN_CLIENT, ADMIN_SECRET, null, Permissions.AUTH_CLIENTS_ADMIN);
        client(props, TENANT_CLIENT, TENANT_SECRET, null, Permissions.SANDBOX_CONFIG_VIEW);
        props.setProperty("outpost.auth.bootstrap-clients." + TENANT_CLIENT + ".sandbox-ids", TENANT_SANDBOX.toString());
        client(props, PUBLISHER_CLIENT, PUBLISHER_SECRET, null, Permissions.NOTIFICATION_PLAYER_WRITE);
        client(props, GENERATED_CLIENT, GENERATED_SECRET, GENERATED_PLAYER, Permissions.NOTIFICATION_PLAYER_SELF_ALL,
                Permissions.SANDBOX_CONFIG_VIEW);
        for (int i = 0; i < PLAYERS.size(); i++) {
            client(props, playerClient(i), PLAYER_SECRET, PLAYERS.get(i), Permissions.NOTIFICATION_PLAYER_SELF_ALL);
        }
        Path file = work.resolve("clients.properties");
        try (Writer writer = Files.newBufferedWriter(file)) {
            props.store(writer, "end-to-end test clients");
        }
        return file;
    }

    private static void client(Properties props, String id, String secret, UUID player, String... permissions) {
        String prefix = "outpost.auth.bootstrap-clients." + id + ".";
        props.setProperty(prefix + "secret", secret);
        props.setProperty(prefix + "permissions", String.join(",", permissions));
        if (player != null) {
            props.setProperty(prefix + "player-uuid", player.toString());
        }
    }

    /** Long polls the first notification-service instance holds now (its gauge). */
    static double heldPolls() {
        String metrics = io.restassured.RestAssured.given().get(get().service("notification-service").url()
                + "/q/metrics").asString();
        java.util.regex.Matcher held = java.util.regex.Pattern
                .compile("(?m)^outpost_notification_polls_held(?:\\{[^}]*\\})? ([0-9.E]+)").matcher(metrics);
        return held.find() ? Double.parseDouble(held.group(1)) : 0;
    }

    /** The client id of the game client bound to {@code PLAYERS.get(i)}. */
    static String playerClient(int i) {
        return "e2e-player-" + i;
    }

    /**
     * Waits (up to a minute) until the consumer group has {@code members} members, each owning partitions of
     * {@code topic}; answers which member (consumer id) owns each of its partitions.
     */
    static Map<Integer, String> partitionOwners(String group, String topic, int members) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                BackingServices.shared().kafkaBootstrapServers()))) {
            Map<Integer, String> ownerOf = new HashMap<>();
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
                var described = admin.describeConsumerGroups(List.of(group)).all().get().get(group).members();
                ownerOf.clear();
                described.forEach(m -> m.assignment().topicPartitions().stream()
                        .filter(tp -> tp.topic().equals(topic))
                        .forEach(tp -> ownerOf.put(tp.partition(), m.consumerId())));
                return described.size() == members && described.stream().allMatch(m -> m.assignment()
                        .topicPartitions().stream().anyMatch(tp -> tp.topic().equals(topic)));
            });
            return Map.copyOf(ownerOf);
        }
    }

    /** The partition of a record keyed {@code key}, as the producers' default partitioner chooses it. */
    static int partitionOf(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

}
