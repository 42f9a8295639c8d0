package io.outpost.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;

/**
 * The PostgreSQL server and Kafka broker that tests and the local stack run against: started here (in
 * parallel) unless environment variables name external ones.
 *
 * <ul>
 * <li>{@value #PG_URL_ENV} ({@code postgresql://host:port/database}) with {@value #PG_USER_ENV} and
 * {@value #PG_PASSWORD_ENV}: use that PostgreSQL instead of starting one.</li>
 * <li>{@value #KAFKA_ENV} ({@code host:port,...}): use that Kafka cluster instead of starting a broker.</li>
 * </ul>
 *
 * <p>A test JVM has one set ({@link #shared()}), whatever the number of class loaders in it: every
 * {@code @TestProfile} restarts Quarkus in a class loader of its own, with its own copy of this class, and each
 * used to start another PostgreSQL and broker (≈20 s each). The first copy starts them and publishes where
 * they are in system properties (plain strings, {@value #PROPERTY_PREFIX}*); the later ones attach to them. What a
 * test does to the processes (stop, start, pause) goes through their pid and data directories, so any copy
 * can do it.
 */
public final class BackingServices implements AutoCloseable {

    public static final String PG_URL_ENV = "OUTPOST_PG_URL";
    public static final String PG_USER_ENV = "OUTPOST_PG_USER";
    public static final String PG_PASSWORD_ENV = "OUTPOST_PG_PASSWORD";
    public static final String KAFKA_ENV = "OUTPOST_KAFKA_BOOTSTRAP";

    static final String PROPERTY_PREFIX = "outpost.test.backing.";
    private static final String PG_URL = PROPERTY_PREFIX + "pg-url";
    private static final String PG_USER = PROPERTY_PREFIX + "pg-user";
    private static final String PG_PASSWORD = PROPERTY_PREFIX + "pg-password";
    private static final String PG_DATA = PROPERTY_PREFIX + "pg-data";
    private static final String KAFKA_BOOTSTRAP = PROPERTY_PREFIX + "kafka-bootstrap";
    private static final String KAFKA_DIR = PROPERTY_PREFIX + "kafka-dir";
    /**
     * One monitor for the whole JVM: a string literal is interned once per JVM, so every class loader's copy of
     * this class locks the same object (a static field's object would be one per copy).
     */
    private static final String JVM_LOCK = "io.outpost.testsupport.BackingServices#shared";

    private static BackingServices shared;

    private final PostgresServer postgresServer;
    private final PostgresConnection postgres;
    private final KafkaBroker broker;
    private final String kafkaBootstrap;
    /** False for a set another class loader started: closing this copy leaves the processes alone. */
    private final boolean owner;

    private BackingServices(PostgresServer postgresServer, PostgresConnection postgres, KafkaBroker broker,
            String kafkaBootstrap, boolean owner) {
        this.postgresServer = postgresServer;
        this.postgres = postgres;
        this.broker = broker;
        this.kafkaBootstrap = kafkaBootstrap;
        this.owner = owner;
    }

    /**
     * The one set of this JVM (throw-away data, free ports), shared by all its class loaders and stopped when the
     * JVM exits.
     */
    public static BackingServices shared() {
        synchronized (JVM_LOCK) {
            if (shared == null) {
                try {
                    shared = System.getProperty(KAFKA_BOOTSTRAP) != null ? attachShared() : startShared();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return shared;
        }
    }

    private static BackingServices startShared() throws IOException {
        Path work = Files.createTempDirectory("outpost-test-");
        BackingServices started = start(null, 0, work.resolve("kafka"), 0);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            started.close();
            deleteTree(work);
        }, "outpost-backing-services-stop"));
        PostgresConnection pg = started.postgres;
        System.setProperty(PG_URL, pg.reactiveUrl());
        System.setProperty(PG_USER, pg.username());
        System.setProperty(PG_PASSWORD, pg.password());
        started.postgresServer().ifPresent(server -> System.setProperty(PG_DATA, server.dataDirectory().toString()));
        started.broker().ifPresent(b -> System.setProperty(KAFKA_DIR, b.directory().toString()));
        System.setProperty(KAFKA_BOOTSTRAP, started.kafkaBootstrap); // last: it marks the set as complete
        System.out.println("[outpost-test] backing services for this JVM: PostgreSQL " + pg.reactiveUrl()
                + ", Kafka " + started.kafkaBootstrap);
        return started;
    }

    /** The set another class loader of this JVM started; it stays that one's to stop. */
    private static BackingServices attachShared() throws IOException {
        String pgData = System.getProperty(PG_DATA);
        String kafkaDir = System.getProperty(KAFKA_DIR);
        return new BackingServices(pgData == null ? null : PostgresServer.attach(Path.of(pgData)),
                PostgresConnection.parse(System.getProperty(PG_URL), System.getProperty(PG_USER),
                        System.getProperty(PG_PASSWORD)),
                kafkaDir == null ? null : KafkaBroker.attach(Path.of(kafkaDir)),
                System.getProperty(KAFKA_BOOTSTRAP), false);
    }

    /**
     * Starts what the environment does not provide.
     *
     * @param postgresData null for a throw-away cluster
     * @param postgresPort 0 for a free port
     * @param kafkaData    the broker's folder
     * @param kafkaPort    0 for a free port
     */
    public static BackingServices start(Path postgresData, int postgresPort, Path kafkaData, int kafkaPort)
            throws IOException {
        String externalPg = System.getenv(PG_URL_ENV);
        String externalKafka = System.getenv(KAFKA_ENV);
        CompletableFuture<PostgresServer> pg = externalPg == null
                ? CompletableFuture.supplyAsync(() -> {
                    try {
                        return PostgresServer.start(postgresData, postgresPort);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                })
                : CompletableFuture.completedFuture(null);
        KafkaBroker broker = externalKafka == null ? KafkaBroker.create(kafkaData, kafkaPort) : null;
        CompletableFuture<Void> kafka = broker == null ? CompletableFuture.completedFuture(null)
                : CompletableFuture.runAsync(() -> {
                    try {
                        broker.start();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
        try {
            CompletableFuture.allOf(pg, kafka).join();
        } catch (CompletionException e) {
            closeQuietly(pg, broker);
            throw new IOException("could not start the backing services: " + e.getCause().getMessage(), e.getCause());
        }
        PostgresServer server = pg.join();
        PostgresConnection connection = server != null ? server.connection()
                : PostgresConnection.parse(externalPg, envOr(PG_USER_ENV, "postgres"), envOr(PG_PASSWORD_ENV, ""));
        return new BackingServices(server, connection, broker,
                broker != null ? broker.bootstrapServers() : externalKafka, true);
    }

    /**
     * Backing services started elsewhere (a {@link ReplicatedBackingServices}): their addresses only; closing this
     * leaves them alone.
     */
    public static BackingServices of(PostgresConnection postgres, String kafkaBootstrap) {
        return new BackingServices(null, postgres, null, kafkaBootstrap, false);
    }

    public PostgresConnection postgres() {
        return postgres;
    }

    public String kafkaBootstrapServers() {
        return kafkaBootstrap;
    }

    /** The broker this JVM started; empty when an external Kafka is used (then it cannot be stopped here). */
    public Optional<KafkaBroker> broker() {
        return Optional.ofNullable(broker);
    }

    /** The PostgreSQL server this JVM started; empty when an external one is used. */
    public Optional<PostgresServer> postgresServer() {
        return Optional.ofNullable(postgresServer);
    }

    /** The Quarkus configuration that points a service at these backing services. */
    public Map<String, String> quarkusConfig() {
        Map<String, String> config = new HashMap<>();
        config.put("quarkus.datasource.jdbc.url", postgres.jdbcUrl());
        config.put("quarkus.datasource.reactive.url", postgres.reactiveUrl());
        config.put("quarkus.datasource.username", postgres.username());
        config.put("quarkus.datasource.password", postgres.password());
        config.put("kafka.bootstrap.servers", kafkaBootstrap);
        return config;
    }

    /** Stops what this object started (a paused or stopped process included). */
    @Override
    public void close() {
        if (!owner) {
            return;
        }
        if (broker != null) {
            broker.stop();
        }
        if (postgresServer != null) {
            try {
                postgresServer.close();
            } catch (IOException e) {
                System.err.println("PostgreSQL did not stop cleanly: " + e.getMessage());
            }
        }
    }

    private static void closeQuietly(CompletableFuture<PostgresServer> pg, KafkaBroker broker) {
        if (broker != null) {
            broker.stop();
        }
        pg.thenAccept(server -> {
            if (server != null) {
                try {
                    server.close();
                } catch (IOException ignored) {
                    // already failing; the first error is the one reported
                }
            }
        });
    }

    /** Deletes {@code root} and all it holds, as far as it can; says so when it cannot walk it. */
    public static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            System.err.println("could not delete " + root + ": " + e.getMessage());
        }
    }

    private static String envOr(String name, String fallback) {
        String value = System.getenv(name);
        return value == null ? fallback : value;
    }
}
