package io.outpost.load.notification;

import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import io.outpost.testsupport.PostgresConnection;

/**
 * Produce → committed in PostgreSQL: listens to the store's own announcements (sent at commit by the
 * {@code notification_stored} trigger, V5__announce_origin.sql), takes the time each arrives, then reads the
 * announced rows by primary key for the produce time their message carries. The time is taken before the read,
 * so the read does not count; nothing is polled, so the probe costs PostgreSQL a few index lookups per commit.
 * (An earlier probe scanned the table every 5 ms: on a 200,000-row backlog that kept a core of PostgreSQL busy
 * and slowed everything it measured.)
 */
final class StoreProbe implements AutoCloseable {

    private static final String CHANNEL = "outpost_notification_stored";
    private final Recorder latency = new Recorder(3);
    private final Thread thread;
    private volatile boolean running = true;

    StoreProbe(PostgresConnection pg) {
        thread = new Thread(() -> {
            try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
                    PreparedStatement rows = c.prepareStatement("SELECT n.message FROM unnest(?::uuid[], ?::bigint[], "
                            + "?::bigint[]) AS a(p, f, l) JOIN notification.notification n ON n.player_uuid = a.p "
                            + "AND n.seq BETWEEN a.f AND a.l")) {
                try (Statement listen = c.createStatement()) {
                    listen.execute("LISTEN " + CHANNEL);
                }
                PGConnection listener = c.unwrap(PGConnection.class);
                while (running) {
                    PGNotification[] arrived = listener.getNotifications(100);
                    long now = System.nanoTime();
                    if (arrived == null) {
                        continue;
                    }
                    for (PGNotification announcement : arrived) {
                        read(c, rows, announcement.getParameter(), now);
                    }
                }
            } catch (Exception e) {
                System.err.println("store probe stopped: " + e);
            }
        }, "store-probe");
        thread.setDaemon(true);
        thread.start();
    }

    /** {@code origin|player:first:last,...}: the rows' produce times against {@code now}, the commit's arrival. */
    private void read(Connection c, PreparedStatement rows, String payload, long now) throws Exception {
        List<UUID> players = new ArrayList<>();
        List<Long> firsts = new ArrayList<>();
        List<Long> lasts = new ArrayList<>();
        for (String part : payload.substring(payload.indexOf('|') + 1).split(",")) {
            String[] fields = part.split(":");
            players.add(UUID.fromString(fields[0]));
            firsts.add(Long.parseLong(fields[1]));
            lasts.add(Long.parseLong(fields[2]));
        }
        Array p = c.createArrayOf("uuid", players.toArray());
        Array f = c.createArrayOf("bigint", firsts.toArray());
        Array l = c.createArrayOf("bigint", lasts.toArray());
        rows.setArray(1, p);
        rows.setArray(2, f);
        rows.setArray(3, l);
        try (ResultSet found = rows.executeQuery()) {
            while (found.next()) {
                String sent = found.getString(1);
                if (!sent.isEmpty() && Character.isDigit(sent.charAt(0))) {
                    latency.recordValue(Math.max(0, (now - Long.parseLong(sent)) / 1000));
                }
            }
        }
    }

    Histogram latencies() {
        return latency.getIntervalHistogram();
    }

    @Override
    public void close() {
        running = false;
    }
}
