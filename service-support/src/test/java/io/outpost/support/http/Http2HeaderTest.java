package io.outpost.support.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;

/**
 * The transport HTTP/1.1's decoder is not: a service's port also speaks HTTP/2 in clear text (prior knowledge), whose
 * decoder hands header values over as bytes without looking at them — a raw 0x00 byte included, which HTTP/1.1
 * refuses with a bodiless 400 before any route (ValidationMappingTest). {@link InputParser} refuses what reaches it
 * all the same: U+0000 as {@code string_pattern_mismatch}, bytes that are not UTF-8 as {@code value_error}, each a
 * 422 at the header, never a 500 and never read with U+FFFD in their place.
 */
@QuarkusTest
class Http2HeaderTest {

    private static final String SANDBOX = "/probe/3f2b8c1e-0d4a-4c5e-9f6a-1b2c3d4e5f60";
    private static final String AT = "{\"detail\":[{\"loc\":[\"header\",\"x-svc-client-addr\"],";
    private static final String NOT_UTF8 = AT + "\"msg\":\"Value error, not UTF-8\",\"type\":\"value_error\"}]}";

    @Test
    void aHeaderHoldingA0x00ByteOrBytesThatAreNotUtf8Is422AtThatHeader() throws Exception {
        assertEquals("422 " + AT + "\"msg\":\"String should not contain U+0000 or an unpaired surrogate "
                + "(U+D800..U+DFFF)\",\"type\":\"string_pattern_mismatch\"}]}", get(SANDBOX, bytes(0x31, 0x00)));
        assertEquals("422 " + NOT_UTF8, get(SANDBOX, bytes(0x31, 0xFF)));
        assertEquals("422 " + NOT_UTF8, get(SANDBOX, bytes(0x31, 0xC0, 0x80)));
        String answer = get(SANDBOX, bytes(0x63, 0x61, 0x66, 0xC3, 0xA9));
        assertEquals("200 ", answer.substring(0, 4), answer);
    }

    private static byte[] bytes(int... values) {
        byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = (byte) values[i];
        }
        return bytes;
    }

    /**
     * {@code GET path} over HTTP/2 with prior knowledge, its {@code x-svc-client-addr} the bytes {@code address} as
     * they are: the answer's status and body.
     */
    private static String get(String path, byte[] address) throws IOException, Http2Exception {
        try (Socket socket = new Socket("127.0.0.1", RestAssured.port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            frame(out, 0x4, 0, 0, new byte[0]); // SETTINGS, all defaults
            Http2Headers headers = new DefaultHttp2Headers(false).method("GET").scheme("http").authority("localhost")
                    .path(path).add(AsciiString.of("x-svc-client-addr"), new AsciiString(address, false));
            ByteBuf block = Unpooled.buffer();
            new DefaultHttp2HeadersEncoder().encodeHeaders(1, headers, block);
            frame(out, 0x1, 0x4 | 0x1, 1, ByteBufUtil.getBytes(block)); // HEADERS, END_HEADERS and END_STREAM
            DataInputStream in = new DataInputStream(socket.getInputStream());
            StringBuilder answer = new StringBuilder();
            while (true) {
                int length = in.readUnsignedByte() << 16 | in.readUnsignedShort();
                int type = in.readUnsignedByte();
                int flags = in.readUnsignedByte();
                int stream = in.readInt();
                byte[] payload = new byte[length];
                in.readFully(payload);
                if (type == 0x4 && (flags & 0x1) == 0) {
                    frame(out, 0x4, 0x1, 0, new byte[0]); // SETTINGS ACK
                } else if (type == 0x1 && stream == 1) {
                    int from = ((flags & 0x8) != 0 ? 1 : 0) + ((flags & 0x20) != 0 ? 5 : 0); // PADDED, PRIORITY
                    int padding = (flags & 0x8) != 0 ? payload[0] & 0xFF : 0;
                    answer.append(new DefaultHttp2HeadersDecoder(false).decodeHeaders(1,
                            Unpooled.wrappedBuffer(payload, from, length - from - padding)).status()).append(' ');
                } else if (type == 0x0 && stream == 1) {
                    answer.append(new String(payload, StandardCharsets.UTF_8));
                    if ((flags & 0x1) != 0) {
                        return answer.toString();
                    }
                } else if (type == 0x3 || type == 0x7) {
                    return answer + "reset or went away";
                }
            }
        } catch (EOFException e) {
            return "closed";
        }
    }

    private static void frame(OutputStream out, int type, int flags, int stream, byte[] payload) throws IOException {
        out.write(new byte[] { (byte) (payload.length >> 16), (byte) (payload.length >> 8), (byte) payload.length,
            (byte) type, (byte) flags, (byte) (stream >> 24), (byte) (stream >> 16), (byte) (stream >> 8),
            (byte) stream });
        out.write(payload);
        out.flush();
    }
}
