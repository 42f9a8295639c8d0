package io.outpost.auth.edge;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import io.outpost.auth.TestClients;

/**
 * Token requests sent from a chosen loopback address (anything in 127.0.0.0/8), as distinct clients on the network
 * would come: the peer address the gateway, or the service, sees.
 */
final class FromAddress {

    private FromAddress() {
    }

    /** POSTs the JSON grant without credentials (a failure the throttle counts) and answers the status code. */
    static int tokenRequest(String source, String url, Map<String, String> headers) throws IOException {
        URI uri = URI.create(url);
        byte[] body = TestClients.GRANT.getBytes(StandardCharsets.UTF_8);
        StringBuilder request = new StringBuilder("POST ").append(uri.getRawPath()).append(" HTTP/1.1\r\n")
                .append("Host: ").append(uri.getHost()).append(':').append(uri.getPort()).append("\r\n")
                .append("Connection: close\r\nContent-Type: application/json\r\n")
                .append("Content-Length: ").append(body.length).append("\r\n");
        headers.forEach((name, value) -> request.append(name).append(": ").append(value).append("\r\n"));
        request.append("\r\n");
        try (Socket socket = new Socket(InetAddress.getByName(uri.getHost()), uri.getPort(),
                InetAddress.getByName(source), 0)) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            return Integer.parseInt(response.substring("HTTP/1.1 ".length(), "HTTP/1.1 ".length() + 3));
        }
    }
}
