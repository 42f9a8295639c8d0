package io.outpost.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A free loopback port for a server a test or the local stack starts later (a broker, PostgreSQL, a service).
 * Taken below the kernel's ephemeral range: a port the kernel hands out (bind to 0) is also what it hands to the
 * next outgoing connection, and between picking it and the server binding it — seconds, for a JVM that starts —
 * a Kafka or PostgreSQL client of a test running alongside (the build runs two modules at once) could take it as
 * its own end, and the server fail with "Address already in use".
 */
public final class FreePorts {

    private static final int LOWEST = 10_000;

    private FreePorts() {
    }

    /** A port that was free a moment ago and is not one the kernel gives outgoing connections. */
    public static int pick() {
        int below = ephemeralLow();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; below > LOWEST + 100 && attempt < 200; attempt++) {
            int port = random.nextInt(LOWEST, below);
            if (bindable(port)) {
                return port;
            }
        }
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException taken) {
            return false;
        }
    }

    /** The first port of Linux's ephemeral range (32768 when it cannot be read). */
    private static int ephemeralLow() {
        try {
            return Integer.parseInt(Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim()
                    .split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
