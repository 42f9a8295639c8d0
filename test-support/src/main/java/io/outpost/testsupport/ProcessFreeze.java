package io.outpost.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Freezes a backing service of the test run with SIGSTOP and thaws it with SIGCONT: to its clients that looks
 * like a network partition (connections stay open, nothing answers). The smallest helper the token tests need
 * until test-support's own pause/resume helpers land; use as {@code try (var frozen = ProcessFreeze.postgres())}.
 */
public final class ProcessFreeze implements AutoCloseable {

    private final ProcessHandle root;

    private ProcessFreeze(ProcessHandle root) {
        this.root = root;
        send("-STOP", List.of(root));
        send("-STOP", root.descendants().toList());
    }

    /** Freezes the test run's PostgreSQL: its postmaster and every backend. */
    public static ProcessFreeze postgres() {
        PostgresConnection pg = BackingServices.shared().postgres();
        try (Connection connection = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password());
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("select setting from pg_settings where name = 'data_directory'")) {
            row.next();
            long pid = Long.parseLong(Files.readAllLines(Path.of(row.getString(1), "postmaster.pid")).get(0).strip());
            return new ProcessFreeze(ProcessHandle.of(pid).orElseThrow());
        } catch (SQLException | IOException e) {
            throw new IllegalStateException("cannot find the PostgreSQL server process", e);
        }
    }

    /** Freezes the test run's Kafka broker (a child JVM of this one). */
    public static ProcessFreeze kafka() {
        return new ProcessFreeze(ProcessHandle.current().children()
                .filter(p -> commandLine(p).contains("io.outpost.kafkabroker.BrokerMain"))
                .findFirst().orElseThrow(() -> new IllegalStateException("no Kafka broker was started by this JVM")));
    }

    /** The whole command line (the JDK's {@code ProcessHandle.Info} gives up on a long class path). */
    private static String commandLine(ProcessHandle process) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(process.pid()), "cmdline"));
        } catch (IOException e) {
            return "";
        }
    }

    /** Thaws the process and everything below it. */
    @Override
    public void close() {
        send("-CONT", Stream.concat(root.descendants(), Stream.of(root)).toList());
    }

    private static void send(String signal, List<ProcessHandle> processes) {
        if (processes.isEmpty()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of("kill", signal));
        processes.forEach(p -> command.add(Long.toString(p.pid())));
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill " + signal + " did not finish");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
