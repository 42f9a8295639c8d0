package io.outpost.load.notification;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashSet;
import java.util.Set;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import io.outpost.testsupport.PostgresConnection;

/**
 * Reads the newest stored notifications every few milliseconds: produce → committed in PostgreSQL, the share of
 * the delivery latency that Kafka and the ingest account for (to within the probe's period).
 */
final class StoreProbe implements AutoCloseable {

    private final Recorder latency = new Recorder(3);
    private final Thread thread;
    private volatile boolean running = true;

    StoreProbe(PostgresConnection pg) {
        thread = new Thread(() -> {
            Set<String> seen = new HashSet<>();
            try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
                    PreparedStatement newest = c.prepareStatement("SELECT message FROM notification.notification "
                            + "WHERE created > now() - interval '3 seconds'")) {
                while (running) {
                    try (ResultSet rows = newest.executeQuery()) {
                        long now = System.nanoTime();
                        while (rows.next()) {
                            String sent = rows.getString(1);
                            if (Character.isDigit(sent.charAt(0)) && seen.add(sent)) {
                                latency.recordValue(Math.max(0, (now - Long.parseLong(sent)) / 1000));
                            }
                        }
                    }
                    if (seen.size() > 100_000) {
                        seen.clear();
                    }
                    Thread.sleep(5);
                }
            } catch (Exception e) {
                System.err.println("store probe stopped: " + e);
            }
        }, "store-probe");
        thread.setDaemon(true);
        thread.start();
    }

    Histogram latencies() {
        return latency.getIntervalHistogram();
    }

    @Override
    public void close() {
        running = false;
    }
}
