package io.outpost.support.http;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The one percent-decoder of every service: query strings ({@link InputParser}), form bodies and Basic credentials
 * (auth-service), the {@code Authorization} cookie; and the one reading of a header value's bytes as UTF-8
 * ({@link #bytesAsUtf8}, {@link InputParser#header}), as strict, without the escapes. {@code %XX} is the byte
 * {@code XX} (two hex digits), {@code +} a space (application/x-www-form-urlencoded, which query strings follow),
 * any other byte itself; the bytes must then be well-formed UTF-8 (RFC 3629). What is not — a {@code %} without
 * two hex digits, or bytes, escaped or not, that are not UTF-8: {@code %FF}, an overlong form ({@code %C0%80}), an
 * encoded surrogate ({@code %ED%A0%80}), a value beyond U+10FFFF, a sequence cut short ({@code %E2%82}) — does not
 * decode: null, never U+FFFD in place of the bytes (which would make {@code a%FF} and {@code a%FE} one value) nor
 * the text kept as it came. What the decoded text holds (U+0000 in {@code %00}) is for its reader to judge.
 */
public final class PercentDecoding {

    private PercentDecoding() {
    }

    /** Decodes {@code bytes[from, to)}; null when they do not decode. */
    public static String decode(byte[] bytes, int from, int to) {
        byte[] decoded = new byte[to - from];
        int length = 0;
        for (int i = from; i < to; i++) {
            byte b = bytes[i];
            if (b == '%') {
                int high = i + 2 < to ? Character.digit(bytes[i + 1], 16) : -1;
                int low = high < 0 ? -1 : Character.digit(bytes[i + 2], 16);
                if (low < 0) {
                    return null;
                }
                b = (byte) (high << 4 | low);
                i += 2;
            } else if (b == '+') {
                b = ' ';
            }
            decoded[length++] = b;
        }
        return utf8(decoded, length);
    }

    /**
     * Decodes {@code text[from, to)}, text that came as bytes read one a character (ISO-8859-1), as the HTTP
     * decoder hands over a request target or a header: each character is the byte it was read from, so bytes above
     * 0x7F sent unescaped are read as UTF-8 like escaped ones. Null when they do not decode, or when a character
     * is beyond U+00FF (it was not read from one byte). Text with nothing to decode is returned as it is.
     */
    public static String decode(CharSequence text, int from, int to) {
        int first = from;
        while (first < to) {
            char c = text.charAt(first);
            if (c == '%' || c == '+' || c > 0x7F) {
                break;
            }
            first++;
        }
        if (first == to) {
            return text.subSequence(from, to).toString();
        }
        byte[] bytes = bytesOf(text, from, to);
        return bytes == null ? null : decode(bytes, 0, bytes.length);
    }

    /**
     * {@code text}, read one byte a character (ISO-8859-1) as the HTTP decoder hands a header value over, read as the
     * UTF-8 it was sent in — nothing is unescaped: {@code %} and {@code +} are themselves. Null when the bytes are
     * not well-formed UTF-8 or a character is beyond U+00FF (it was not read from one byte); never U+FFFD in place
     * of them. Text of ASCII characters alone is returned as it is.
     */
    static String bytesAsUtf8(String text) {
        int n = text.length();
        int first = 0;
        while (first < n && text.charAt(first) <= 0x7F) {
            first++;
        }
        if (first == n) {
            return text;
        }
        byte[] bytes = bytesOf(text, 0, n);
        return bytes == null ? null : utf8(bytes, bytes.length);
    }

    /** The bytes {@code text[from, to)} was read from, one a character; null for a character beyond U+00FF. */
    private static byte[] bytesOf(CharSequence text, int from, int to) {
        byte[] bytes = new byte[to - from];
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c > 0xFF) {
                return null;
            }
            bytes[i - from] = (byte) c;
        }
        return bytes;
    }

    private static String utf8(byte[] bytes, int length) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes, 0, length))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
