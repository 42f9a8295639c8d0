package io.outpost.kafkabroker;

import java.io.IOException;

/**
 * Runs {@code kafka.Kafka} with a watchdog: the launcher keeps this process's standard input open, and when
 * the launching JVM ends for any reason (even SIGKILL) the pipe closes and the broker shuts down instead of
 * lingering as an orphan that holds ports and disk.
 */
public final class BrokerMain {

    private BrokerMain() {
    }

    public static void main(String[] args) throws Exception {
        Thread watchdog = new Thread(() -> {
            try {
                while (System.in.read() != -1) {
                    // the launcher never writes; EOF means it is gone
                }
            } catch (IOException e) {
                // a broken pipe means the same
            }
            System.exit(0);
        }, "outpost-parent-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        kafka.Kafka.main(args);
    }
}
