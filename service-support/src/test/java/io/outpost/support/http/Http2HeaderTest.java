package io.outpost.support.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.outpost.testsupport.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;

/**
 * The services speak HTTP/1.1 only ({@code quarkus.http.http2=false}): HTTP/2 in clear text (h2c) handed header
 * values over unchecked, so that a bare CR, a 0x00 byte or another control character, which HTTP/1.1's decoder
 * answers with a bodiless 400, reached the endpoint (a CR was read as part of {@code x-svc-client-addr}). An h2c
 * preface is now answered in HTTP/1 and the connection closed; an {@code Upgrade: h2c} is not taken, the request
 * answered in HTTP/1.1. Each test failed before: the same requests were served over HTTP/2. {@link InputParserTest} has the parser's own refusal of control characters.
 */
@QuarkusTest
class Http2HeaderTest {

    private static final String SANDBOX = "/probe/3f2b8c1e-0d4a-4c5e-9f6a-1b2c3d4e5f60";
    /**
     * The answer to an h2c preface: its first line, {@code PRI * HTTP/2.0}, read as an HTTP/1 request line for the
     * target {@code *}, which no route has (a bodiless 404, the version echoed), then the connection closed — not kept
     * alive for a version other than 1.1. No HTTP/2 frame is read.
     */
    private static final String NOT_SPOKEN = "HTTP/2.0 404 Not Found\r\ncontent-length: 0\r\n\r\n";
    /** Values of {@code x-svc-client-addr}, each within its 32 characters, that a field value may not hold. */
    private static final List<String> CONTROL = List.of("10.0.0.1\r2", "10.0.0.1\n2", "10.0.0.1\u00002",
            "10.0.0.1\u00012", "10.0.0.1\u001f2", "10.0.0.1\u007f2");
    /**
     * The one such value a Vert.x client sends (it refuses the others itself): a folded line, CR LF and a space,
     * which HTTP/1.1's decoder reads as one space and HTTP/2's handed over as it came.
     */
    private static final String FOLDED = "10.0.0.1\r\n 2";

    @Inject
    Vertx vertx;

    @Test
    void http2WithPriorKnowledgeIsAnsweredInHttp1AndClosed() throws Exception {
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2)
                .setHttp2ClearTextUpgrade(false));
        try {
            for (String address : new String[] { FOLDED, null }) {
                ExecutionException failed = assertThrows(ExecutionException.class, () -> get(client, address));
                Http2Exception notHttp2 = assertInstanceOf(Http2Exception.class, failed.getCause());
                // "HTTP/": the server's answer in HTTP/1, where the client waited for a SETTINGS frame
                assertTrue(notHttp2.getMessage().startsWith("First received frame was not SETTINGS. Hex dump for "
                        + "first 5 bytes: 485454502f"), notHttp2.getMessage());
            }
        } finally {
            client.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        for (String address : CONTROL) {
            assertEquals(NOT_SPOKEN, priorKnowledge(address), address);
        }
    }

    /**
     * The client asks to upgrade its first request's connection; the answer comes in HTTP/1.1, so the request that
     * follows, with a folded {@code x-svc-client-addr}, is HTTP/1.1 too and answered as an HTTP/1.1 client's is.
     */
    @Test
    void anUpgradeToH2cIsNotTaken() throws Exception {
        HttpClient upgrading = vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2));
        HttpClient http11 = vertx.createHttpClient(new HttpClientOptions());
        try {
            assertEquals("HTTP_1_1 200", status(get(upgrading, null)));
            String answer = get(upgrading, FOLDED);
            assertEquals("HTTP_1_1 200", status(answer), answer);
            assertEquals(get(http11, FOLDED), answer);
        } finally {
            upgrading.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            http11.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        // as curl --http2 asks: the answer would be 101 Switching Protocols, then HTTP/2 frames
        assertEquals("HTTP/1.1 200 OK", statusLine("GET " + SANDBOX + " HTTP/1.1\r\nHost: localhost\r\n"
                + "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n"));
    }

    private static String statusLine(String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", RestAssured.port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            StringBuilder line = new StringBuilder();
            InputStream in = socket.getInputStream();
            for (int b = in.read(); b >= 0 && b != '\r'; b = in.read()) {
                line.append((char) b);
            }
            return line.toString();
        }
    }

    /** The same values over HTTP/1.1, unchanged: the decoder's bodiless 400 before any route. */
    @Test
    void overHttp11TheSameHeadersAreRefusedByTheDecoder() {
        for (String address : CONTROL) {
            String answer = RawHttp.get(RestAssured.port, SANDBOX, "x-svc-client-addr: " + address + "\r\n");
            assertTrue(answer.startsWith("HTTP/1.1 400 ") && answer.endsWith("\r\n\r\n"), answer);
        }
    }

    /** {@code GET} {@link #SANDBOX}, with {@code x-svc-client-addr} unless null: version, status and body. */
    private static String get(HttpClient client, String address) throws Exception {
        RequestOptions request = new RequestOptions().setHost("127.0.0.1").setPort(RestAssured.port).setURI(SANDBOX);
        if (address != null) {
            request.putHeader("x-svc-client-addr", address);
        }
        return client.request(request).compose(sent -> sent.send())
                .compose(response -> response.body().map(body -> response.version() + " " + response.statusCode()
                        + " " + body))
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static String status(String answer) {
        return answer.substring(0, answer.indexOf(' ', answer.indexOf(' ') + 1));
    }

    /**
     * {@code GET} {@link #SANDBOX} over HTTP/2 with prior knowledge, written frame by frame (no client library sends
     * these values), its {@code x-svc-client-addr} the given characters as bytes: every byte the server sends until
     * it closes, or until 10 s of silence.
     */
    private static String priorKnowledge(String address) throws IOException, Http2Exception {
        try (Socket socket = new Socket("127.0.0.1", RestAssured.port)) {
            socket.setSoTimeout(10_000);
            // one write, so that the server has read it all when it answers and closes (no reset for unread bytes)
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            frame(request, 0x4, 0, 0, new byte[0]); // SETTINGS, all defaults
            Http2Headers headers = new DefaultHttp2Headers(false).method("GET").scheme("http").authority("localhost")
                    .path(SANDBOX).add(AsciiString.of("x-svc-client-addr"), new AsciiString(address));
            ByteBuf block = Unpooled.buffer();
            new DefaultHttp2HeadersEncoder().encodeHeaders(1, headers, block);
            frame(request, 0x1, 0x4 | 0x1, 1, ByteBufUtil.getBytes(block)); // HEADERS, END_HEADERS and END_STREAM
            socket.getOutputStream().write(request.toByteArray());
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            try {
                in.transferTo(answer);
            } catch (SocketTimeoutException stillOpen) {
                answer.write("<still open>".getBytes(StandardCharsets.ISO_8859_1));
            }
            return answer.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static void frame(OutputStream out, int type, int flags, int stream, byte[] payload) throws IOException {
        out.write(new byte[] { (byte) (payload.length >> 16), (byte) (payload.length >> 8), (byte) payload.length,
            (byte) type, (byte) flags, (byte) (stream >> 24), (byte) (stream >> 16), (byte) (stream >> 8),
            (byte) stream });
        out.write(payload);
    }
}
