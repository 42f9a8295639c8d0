package io.outpost.testsupport;

import java.net.URI;

/** Where a PostgreSQL server is and how to log in, with the two URL forms Quarkus needs. */
public record PostgresConnection(String host, int port, String database, String username, String password) {

    /** Parses {@code postgresql://host:port/database}. */
    public static PostgresConnection parse(String url, String username, String password) {
        URI uri = URI.create(url.startsWith("jdbc:") ? url.substring("jdbc:".length()) : url);
        if (uri.getHost() == null || uri.getPath() == null || uri.getPath().length() < 2) {
            throw new IllegalArgumentException("expected postgresql://host:port/database, got " + url);
        }
        int port = uri.getPort() == -1 ? 5432 : uri.getPort();
        return new PostgresConnection(uri.getHost(), port, uri.getPath().substring(1), username, password);
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    public String reactiveUrl() {
        return "postgresql://" + host + ":" + port + "/" + database;
    }
}
