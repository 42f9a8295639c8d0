package io.outpost.testsupport;

import java.util.List;
import java.util.Map;

/**
 * What a game client's request carries besides {@code Host} and its token once it has passed an ingress-nginx
 * controller: the headers a game engine's HTTP client sends and those the controller adds, with values of typical
 * length (the addresses are documentation ones, sent as text only). For tests and benchmarks of what a service
 * keeps of a request.
 */
public final class IngressHeaders {

    /** Name and value, in the order they are sent. */
    public static final List<Map.Entry<String, String>> ALL = List.of(
            Map.entry("User-Agent", "UnityPlayer/2022.3.20f1 (UnityWebRequest/1.0, libcurl/8.4.0-DEV)"),
            Map.entry("Accept", "*/*"),
            Map.entry("Accept-Encoding", "deflate, gzip"),
            Map.entry("X-Unity-Version", "2022.3.20f1"),
            Map.entry("X-Request-ID", "8c2f5e0b7d6a4f1e9b3c2a1d0e9f8a7b"),
            Map.entry("X-Real-IP", "203.0.113.57"),
            Map.entry("X-Forwarded-For", "203.0.113.57"),
            Map.entry("X-Forwarded-Host", "play.example.com"),
            Map.entry("X-Forwarded-Port", "443"),
            Map.entry("X-Forwarded-Proto", "https"),
            Map.entry("X-Forwarded-Scheme", "https"),
            Map.entry("X-Scheme", "https"));

    private IngressHeaders() {
    }

    /** The headers as raw HTTP/1.1 lines, each ending in CRLF. */
    public static String lines() {
        StringBuilder lines = new StringBuilder();
        ALL.forEach(header -> lines.append(header.getKey()).append(": ").append(header.getValue()).append("\r\n"));
        return lines.toString();
    }
}
