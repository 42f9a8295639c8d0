package io.outpost.history.store;

import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The text PostgreSQL writes for a snapshot ({@code version::text}), measured without writing it: what a listing
 * reads from the store. {@code jsonb} keeps numbers as {@code numeric}, which it writes without an exponent, so
 * {@code 1e999} comes back as 1,000 digits; a space follows every {@code :} and {@code ,}; strings are escaped
 * as in JSON (a quote, a backslash, {@code \n} and the like, other control characters as six characters),
 * everything else written as UTF-8.
 */
public final class JsonbText {

    /** Characters a number may take written out: digits, sign and point (1,000 is Jackson's bound on a number too). */
    public static final int MAX_NUMBER_CHARS = 1_000;
    /**
     * Bytes a snapshot may take written out: twice Kafka's default largest record (1 MiB), so only numbers
     * written with large exponents bring a snapshot that arrived in a record this far.
     */
    public static final int MAX_BYTES = 2 << 20;

    private JsonbText() {
    }

    /** Characters of a number as {@code jsonb} writes it: sign, integer digits (at least one), point and fraction. */
    public static long numberChars(JsonNode number) {
        if (number.isInt() || number.isLong()) {
            long value = number.longValue();
            return digits(value) + (value < 0 ? 1 : 0);
        }
        BigDecimal value = number.decimalValue();
        int scale = value.scale();
        long fraction = scale > 0 ? scale + 1L : 0;
        if (value.signum() == 0) {
            return 1 + fraction; // no sign: -0.0 is written 0.0
        }
        long integer = Math.max(1, (long) value.precision() - scale);
        return (value.signum() < 0 ? 1 : 0) + integer + fraction;
    }

    /**
     * Bytes of {@code value} written out. Recursive: a snapshot is at most 128 levels deep (the ingest's check),
     * and the walk allocates only an iterator per object.
     */
    public static long bytes(JsonNode value) {
        if (value.isObject()) {
            long bytes = 2;
            Iterator<Map.Entry<String, JsonNode>> fields = value.properties().iterator();
            for (boolean first = true; fields.hasNext(); first = false) {
                Map.Entry<String, JsonNode> field = fields.next();
                bytes += (first ? 0 : 2) + stringBytes(field.getKey()) + 2 + bytes(field.getValue());
            }
            return bytes;
        }
        if (value.isArray()) {
            long bytes = 2;
            for (int i = 0; i < value.size(); i++) {
                bytes += (i == 0 ? 0 : 2) + bytes(value.get(i));
            }
            return bytes;
        }
        if (value.isNumber()) {
            return numberChars(value);
        }
        if (value.isTextual()) {
            return stringBytes(value.textValue());
        }
        return value.isBoolean() && !value.booleanValue() ? 5 : 4; // true, null; false
    }

    /** Bytes of a string written out as PostgreSQL's {@code escape_json} does, quotes included. */
    static long stringBytes(String text) {
        long bytes = 2;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20) {
                bytes += c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t' ? 2 : 6;
            } else if (c == '"' || c == '\\') {
                bytes += 2;
            } else if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)) {
                bytes += 4; // with its low surrogate: the ingest refuses an unpaired one
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    private static int digits(long value) {
        if (value == Long.MIN_VALUE) {
            return 19;
        }
        long magnitude = Math.abs(value);
        int digits = 1;
        for (long bound = 10; digits < 19 && magnitude >= bound; bound *= 10) {
            digits++;
        }
        return digits;
    }
}
