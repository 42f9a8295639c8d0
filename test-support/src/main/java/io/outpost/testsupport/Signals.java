package io.outpost.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The POSIX signals a fault test needs and the JDK cannot send: SIGSTOP freezes a process tree (to the
 * clients it looks like a network partition: connections stay open and nothing answers), SIGCONT thaws it, and
 * SIGKILL ends a whole tree at once. Sent with the system's {@code kill}.
 */
final class Signals {

    private Signals() {
    }

    /** Freezes {@code root} first (so it forks nothing new), then every process below it. */
    static void pause(ProcessHandle root) {
        send("-STOP", List.of(root));
        send("-STOP", root.descendants().toList());
    }

    /**
     * SIGKILL to {@code root} and every process below it at once (listed first: once the root is gone its children
     * are no longer below it), as a lost machine ends them: nothing is flushed, no connection is closed politely.
     */
    static void kill(ProcessHandle root) {
        send("-KILL", Stream.concat(Stream.of(root), root.descendants()).toList());
    }

    /** Thaws {@code root} and every process below it; harmless on processes that are not stopped. */
    static void resume(ProcessHandle root) {
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
            // a process that ended meanwhile makes kill exit non-zero; the others were still signalled
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill " + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending " + signal, e);
        }
    }
}
