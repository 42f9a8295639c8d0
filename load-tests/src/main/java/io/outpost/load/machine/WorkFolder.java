package io.outpost.load.machine;

import java.nio.file.Files;
import java.nio.file.Path;

import io.outpost.testsupport.BackingServices;

/**
 * What a benchmark leaves behind. Its work folder keeps the services' logs; the data of the PostgreSQL and Kafka it
 * started (0.2–1.8 GB per run) is removed when the JVM exits — done, failed, or stopped by {@code timeout}'s
 * SIGTERM — unless {@code -Doutpost.bench.keep-data=true} asks to keep it for a look afterwards.
 */
public final class WorkFolder {

    public static final String KEEP_DATA = "outpost.bench.keep-data";

    private WorkFolder() {
    }

    /** Removes these folders, with all they hold, when the JVM exits (after the backing services stopped). */
    public static void dropDataAtExit(Path... folders) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> dropData(folders), "drop-benchmark-data"));
    }

    static void dropData(Path... folders) {
        if (Boolean.getBoolean(KEEP_DATA)) {
            System.out.println("data kept (-D" + KEEP_DATA + "=true): " + java.util.Arrays.toString(folders));
            return;
        }
        for (Path folder : folders) {
            // stopped by a signal, PostgreSQL may still be removing its own files: try again a few times
            for (int attempt = 1; attempt <= 5 && Files.exists(folder); attempt++) {
                if (attempt > 1) {
                    pause();
                }
                BackingServices.deleteTree(folder);
            }
            if (Files.exists(folder)) {
                System.out.println("could not remove " + folder);
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(500);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
