package io.outpost.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The PostgreSQL server and Kafka broker that tests and the local stack run against: started here (in
 * parallel) unless environment variables name external ones.
 *
 * <ul>
 * <li>{@value #PG_URL_ENV} ({@code postgresql://host:port/database}) with {@value #PG_USER_ENV} and
 * {@value #PG_PASSWORD_ENV}: use that PostgreSQL instead of starting one.</li>
 * <li>{@value #KAFKA_ENV} ({@code host:port,...}): use that Kafka cluster instead of starting a broker.</li>
 * </ul>
 */
public final class BackingServices implements AutoCloseable {

    public static final String PG_URL_ENV = "OUTPOST_PG_URL";
    public static final String PG_USER_ENV = "OUTPOST_PG_USER";
    public static final String PG_PASSWORD_ENV = "OUTPOST_PG_PASSWORD";
    public static final String KAFKA_ENV = "OUTPOST_KAFKA_BOOTSTRAP";

    private static BackingServices shared;

    private final PostgresServer postgresServer;
    private final PostgresConnection postgres;
    private final KafkaBroker broker;
    private final String kafkaBootstrap;

    private BackingServices(PostgresServer postgresServer, PostgresConnection postgres, KafkaBroker broker,
            String kafkaBootstrap) {
        this.postgresServer = postgresServer;
        this.postgres = postgres;
        this.broker = broker;
        this.kafkaBootstrap = kafkaBootstrap;
    }

    /** The one instance of this JVM (throw-away data, free ports), stopped when the JVM exits. */
    public static synchronized BackingServices shared() {
        if (shared == null) {
            try {
                Path work = Files.createTempDirectory("outpost-test-");
                shared = start(null, 0, work.resolve("kafka"), 0);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            BackingServices started = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "outpost-backing-services-stop"));
        }
        return shared;
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
                broker != null ? broker.bootstrapServers() : externalKafka);
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

    @Override
    public void close() {
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

    private static String envOr(String name, String fallback) {
        String value = System.getenv(name);
        return value == null ? fallback : value;
    }
}
