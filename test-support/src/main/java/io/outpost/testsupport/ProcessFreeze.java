package io.outpost.testsupport;

/**
 * Freezes a backing service of the test run with SIGSTOP and thaws it with SIGCONT: to its clients that looks
 * like a network partition (connections stay open, nothing answers). A try-with-resources form of
 * {@link PostgresServer#pause()} and {@link KafkaBroker#pause()}: {@code try (var frozen = ProcessFreeze.postgres())}.
 */
public final class ProcessFreeze implements AutoCloseable {

    private final Runnable thaw;

    private ProcessFreeze(Runnable freeze, Runnable thaw) {
        this.thaw = thaw;
        freeze.run();
    }

    /** Freezes the test run's PostgreSQL: its postmaster and every backend. */
    public static ProcessFreeze postgres() {
        PostgresServer pg = BackingServices.shared().postgresServer()
                .orElseThrow(() -> new IllegalStateException("PostgreSQL was not started by this test run"));
        return new ProcessFreeze(pg::pause, pg::resume);
    }

    /** Freezes the test run's Kafka broker. */
    public static ProcessFreeze kafka() {
        KafkaBroker broker = BackingServices.shared().broker()
                .orElseThrow(() -> new IllegalStateException("no Kafka broker was started by this test run"));
        return new ProcessFreeze(broker::pause, broker::resume);
    }

    /**
     * Freezes one process of the machine, e.g. the PostgreSQL backend serving one connection (its
     * {@code pg_backend_pid()}): to that connection's client the network went silent, while every other
     * connection works.
     */
    public static ProcessFreeze process(long pid) {
        ProcessHandle process = ProcessHandle.of(pid)
                .orElseThrow(() -> new IllegalStateException("no process " + pid));
        return new ProcessFreeze(() -> Signals.pause(process), () -> Signals.resume(process));
    }

    /** Thaws the process and everything below it. */
    @Override
    public void close() {
        thaw.run();
    }
}
