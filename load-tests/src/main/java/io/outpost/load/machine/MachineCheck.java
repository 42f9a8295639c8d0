package io.outpost.load.machine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;

/**
 * Two short readings of the machine a benchmark runs on, printed beside its figures so runs on different days
 * can be compared: how fast one core signs ES256 (the JDK's own provider; docs/benchmarks.md and the shared
 * PERFORMANCE.md give 1,614/s for these machines on a good day) and how long an 8 KiB write plus
 * {@code fdatasync} takes in the benchmark's work folder (what a PostgreSQL commit waits for; 96 µs seen here).
 * About three seconds in all.
 */
public final class MachineCheck {

    private MachineCheck() {
    }

    /** One line: signs/s of one core, µs per synced 8 KiB write, load average. */
    public static String line(Path folder) {
        try {
            return String.format("machine check: ES256 %,.0f signs/s on one core, 8 KiB write+fdatasync %,.0f µs, load %s",
                    es256PerSecond(), fdatasyncMicros(folder), Files.readString(Path.of("/proc/loadavg")).strip());
        } catch (IOException | GeneralSecurityException e) {
            return "machine check failed: " + e;
        }
    }

    static double es256PerSecond() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair pair = generator.generateKeyPair();
        byte[] message = new byte[300];
        long warm = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() < warm) {
            sign(pair, message);
        }
        int signed = 0;
        long start = System.nanoTime();
        long end = start + 1_500_000_000L;
        while (System.nanoTime() < end) {
            sign(pair, message);
            signed++;
        }
        return signed / ((System.nanoTime() - start) / 1e9);
    }

    private static void sign(KeyPair pair, byte[] message) throws GeneralSecurityException {
        Signature signature = Signature.getInstance("SHA256withECDSA");
        signature.initSign(pair.getPrivate());
        signature.update(message);
        signature.sign();
    }

    static double fdatasyncMicros(Path folder) throws IOException {
        Files.createDirectories(folder);
        Path file = Files.createTempFile(folder, "fsync-", ".probe");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer block = ByteBuffer.allocate(8192);
            int writes = 200;
            long start = System.nanoTime();
            for (int i = 0; i < writes; i++) {
                block.clear();
                channel.write(block, 0);
                channel.force(false);
            }
            return (System.nanoTime() - start) / 1e3 / writes;
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
