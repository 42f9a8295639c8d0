package io.outpost.kafkabroker;

import java.util.Optional;

/**
 * Runs {@code kafka.Kafka} with a watchdog: when the JVM that launched this broker ends for any reason (even
 * SIGKILL), the broker shuts down instead of lingering as an orphan that holds ports and disk. The watchdog
 * follows the launcher's process (its pid in {@value #LAUNCHER_PID}) rather than a pipe from it, so the broker
 * does not depend on the launcher keeping its {@code Process} object: a test may stop and start the broker from
 * another class loader than the one that first started it, and the first one's objects may be collected.
 */
public final class BrokerMain {

    /** System property: the pid of the process whose end stops this broker. */
    public static final String LAUNCHER_PID = "outpost.broker.launcher-pid";

    private BrokerMain() {
    }

    public static void main(String[] args) throws Exception {
        Long launcherPid = Long.getLong(LAUNCHER_PID);
        Optional<ProcessHandle> launcher = launcherPid != null ? ProcessHandle.of(launcherPid)
                : ProcessHandle.current().parent();
        if (launcher.isEmpty() || !launcher.get().isAlive()) {
            return; // the launcher is already gone
        }
        launcher.get().onExit().thenRun(() -> System.exit(0));
        kafka.Kafka.main(args);
    }
}
