package io.outpost.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * A PostgreSQL primary with one streaming standby, and the one address the services use: a {@link TcpForwarder}
 * to whichever is primary, as CloudNativePG's {@code -rw} Service is. Both run the project's own binaries
 * (zonky's PostgreSQL 18, which has no {@code pg_basebackup}): the primary starts as {@link PostgresServer}
 * starts any kept cluster; a standby is made from the primary's data with the low-level base backup
 * ({@code pg_backup_start}, a copy of the files, {@code pg_backup_stop}, its {@code backup_label}) and streams
 * from a physical replication slot of its own.
 *
 * <p>Replication is synchronous ({@code synchronous_standby_names} names the standby: a commit returns once the
 * standby has flushed it — the services' sessions ask for {@code synchronous_commit=on}) or asynchronous.
 * {@link #killPrimary()} ends the primary's processes with SIGKILL; {@link #promote()} promotes the standby and
 * moves the address to it; {@link #rebuildStandby()} makes a new standby from the new primary, as the operator
 * does. Members are named {@code member_1}, {@code member_2}, … (their folders, slots and
 * {@code application_name}s).
 */
public final class PostgresPair implements AutoCloseable {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private final Path directory;
    private final TcpForwarder rw;
    private PostgresServer primary;
    private PostgresServer standby;
    private String standbyName;
    private int members = 1;
    private boolean synchronous;

    private PostgresPair(Path directory, PostgresServer first) {
        this.directory = directory;
        this.primary = first;
        this.rw = TcpForwarder.start(first.port());
    }

    /** Starts a primary in {@code directory/member_1}, then a standby of it; both on free loopback ports. */
    public static PostgresPair start(Path directory, boolean synchronous) throws IOException {
        Path data = directory.resolve("member_1");
        // created by the library (initdb, settings), then run with pg_ctl as every later member is: the library's
        // own stop would fail, loudly, once this member was killed and its folder deleted
        PostgresServer.start(data, 0).close();
        PostgresServer first = PostgresServer.attach(data);
        first.start();
        PostgresPair pair = new PostgresPair(directory, first);
        try {
            pair.rebuildStandby();
            pair.synchronous(synchronous);
        } catch (IOException | RuntimeException e) {
            pair.close();
            throw e;
        }
        return pair;
    }

    /** The address the services use: the primary, whichever member it is. */
    public PostgresConnection connection() {
        PostgresConnection direct = primary.connection();
        return new PostgresConnection("127.0.0.1", rw.port(), direct.database(), direct.username(), direct.password());
    }

    public synchronized PostgresServer primary() {
        return primary;
    }

    /** The standby; null between a promotion and {@link #rebuildStandby()}. */
    public synchronized PostgresServer standby() {
        return standby;
    }

    public synchronized boolean isSynchronous() {
        return synchronous;
    }

    /**
     * Makes replication synchronous (the primary's commits wait for the standby's flush) or asynchronous, and waits
     * until the primary reports the standby so.
     */
    public synchronized void synchronous(boolean on) throws IOException {
        synchronous = on;
        if (standby == null) {
            return;
        }
        execute(primary, "ALTER SYSTEM SET synchronous_standby_names = '" + (on ? standbyName : "") + "'");
        execute(primary, "SELECT pg_reload_conf()");
        awaitReplication(on ? "sync" : "async");
    }

    /**
     * Freezes (SIGSTOP) the primary's WAL sender to the standby until the answer is closed: the standby receives
     * nothing more, as one cut off or far behind would. (Freezing the standby itself would not do: what the sender
     * had already written into their connection would still reach it once thawed, after the primary was gone.)
     */
    public synchronized ProcessFreeze freezeReplication() throws IOException {
        try (Connection c = connect(primary); PreparedStatement s = c.prepareStatement(
                "SELECT pid FROM pg_stat_replication WHERE application_name = ?")) {
            s.setString(1, standbyName);
            try (ResultSet rows = s.executeQuery()) {
                if (!rows.next()) {
                    throw new IOException("the primary sends no WAL to " + standbyName);
                }
                return ProcessFreeze.process(rows.getLong(1));
            }
        } catch (SQLException e) {
            throw new IOException("cannot find the WAL sender to " + standbyName + ": " + e.getMessage(), e);
        }
    }

    /** SIGKILL to every process of the primary; the address now leads nowhere (connections are refused). */
    public synchronized void killPrimary() {
        primary.kill();
    }

    /**
     * Promotes the standby and moves the address to it (every connection through it ends); the new primary waits
     * for no standby until {@link #rebuildStandby()} gives it one.
     */
    public synchronized void promote() throws IOException {
        if (standby == null) {
            throw new IllegalStateException("no standby to promote");
        }
        standby.promote();
        primary = standby;
        standby = null;
        execute(primary, "ALTER SYSTEM SET synchronous_standby_names = ''");
        execute(primary, "SELECT pg_reload_conf()");
        rw.target(primary.port());
    }

    /**
     * Replaces the standby (or gives the primary one after a failover: the old primary's data, which may hold
     * commits the new one never had, is discarded) with a new member made from the primary's data; replication
     * is then as {@link #synchronous(boolean)} last set it.
     */
    public synchronized void rebuildStandby() throws IOException {
        if (standby != null) {
            standby.kill();
        }
        String name = "member_" + (++members);
        Path data = directory.resolve(name);
        int port = FreePorts.pick();
        try (Connection c = connect(primary)) {
            // the slots of earlier standbys would keep WAL for them forever
            query(c, "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE NOT active");
            query(c, "SELECT pg_create_physical_replication_slot('" + name + "', true)");
            query(c, "SELECT pg_backup_start('" + name + "', true)");
            BaseBackup.copy(primary.dataDirectory(), data);
            try (Statement s = c.createStatement();
                    ResultSet stop = s.executeQuery("SELECT labelfile, spcmapfile FROM pg_backup_stop(false)")) {
                stop.next();
                Files.writeString(data.resolve("backup_label"), stop.getString(1), StandardCharsets.UTF_8);
                String map = stop.getString(2);
                if (map != null && !map.isEmpty()) {
                    Files.writeString(data.resolve("tablespace_map"), map, StandardCharsets.UTF_8);
                }
            }
            BaseBackup.copyWal(primary.dataDirectory(), data);
        } catch (SQLException e) {
            throw new IOException("base backup of " + primary.dataDirectory() + " failed: " + e.getMessage(), e);
        }
        Files.writeString(data.resolve("standby.signal"), "", StandardCharsets.UTF_8);
        Files.writeString(data.resolve("postgresql.auto.conf"), String.join("\n",
                "primary_conninfo = 'host=127.0.0.1 port=" + primary.port() + " user=postgres application_name=" + name + "'",
                "primary_slot_name = '" + name + "'",
                "synchronous_standby_names = ''", ""), StandardCharsets.UTF_8);
        Files.writeString(data.resolve("postmaster.opts"), primary.postmasterOptsFor(data, port), StandardCharsets.UTF_8);
        PostgresServer started = PostgresServer.attach(data);
        started.start();
        standby = started;
        standbyName = name;
        awaitReplication(null);
        for (int old = 1; old < members; old++) {
            Path gone = directory.resolve("member_" + old);
            if (!gone.equals(primary.dataDirectory()) && Files.exists(gone)) {
                BackingServices.deleteTree(gone);
            }
        }
        if (synchronous) {
            synchronous(true);
        }
    }

    /** Waits until the primary streams to the standby ({@code sync_state} {@code state}, or any when null). */
    private void awaitReplication(String state) throws IOException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try (Connection c = connect(primary); PreparedStatement s = c.prepareStatement(
                    "SELECT sync_state FROM pg_stat_replication WHERE application_name = ? AND state = 'streaming'")) {
                s.setString(1, standbyName);
                try (ResultSet rows = s.executeQuery()) {
                    if (rows.next() && (state == null || state.equals(rows.getString(1)))) {
                        return;
                    }
                }
            } catch (SQLException notYet) {
                // the primary is still starting
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(standbyName + " not streaming (" + state + ") from " + primary.dataDirectory()
                        + " within " + WAIT);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
    }

    private static Connection connect(PostgresServer server) throws SQLException {
        PostgresConnection pg = server.connection();
        return DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
    }

    private static void execute(PostgresServer server, String sql) throws IOException {
        try (Connection c = connect(server)) {
            query(c, sql);
        } catch (SQLException e) {
            throw new IOException(sql + ": " + e.getMessage(), e);
        }
    }

    private static void query(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** Stops both members and the address; their folders stay for the owner of {@code directory} to delete. */
    @Override
    public synchronized void close() {
        rw.close();
        for (PostgresServer member : new PostgresServer[] { standby, primary }) {
            if (member != null) {
                try {
                    member.stop();
                } catch (IOException e) {
                    member.kill();
                }
            }
        }
    }
}
