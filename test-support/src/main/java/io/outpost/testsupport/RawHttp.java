package io.outpost.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One request written byte for byte on its own connection, for what an HTTP client library would not send as
 * given (request lines and headers past a server's limits, malformed percent-encoding, braces in a path).
 */
public final class RawHttp {

    private static final int READ_TIMEOUT_MILLIS = 20_000;

    private RawHttp() {
    }

    /**
     * {@code GET <target> HTTP/1.1} to 127.0.0.1:{@code port} with {@code moreHeaders} (each line ending in CRLF):
     * the whole answer, status line to body, which the closing connection ends.
     */
    public static String get(int port, String target, String moreHeaders) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
            socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + moreHeaders + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
