package io.outpost.model.error;

import java.math.BigInteger;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import io.outpost.model.Uuids;

/**
 * The checks behind every limit of spec §8, shared by event validation and HTTP input parsing so that the
 * same input is refused the same way everywhere. Each check appends at most one {@link ErrorDetail} to
 * {@code out}. Lengths count Unicode code points ("characters"), not UTF-16 units.
 */
public final class Constraints {

    /** The earliest timestamp accepted (DESIGN §5): PostgreSQL and clients' date libraries agree on 0001..9999. */
    public static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
    /** The latest timestamp accepted (DESIGN §5). */
    public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

    /** Digits of a whole number that always fit a {@code long}, whatever they are. */
    private static final int LONG_SAFE_DIGITS = 18;

    private Constraints() {
    }

    /** Refuses an absent value; true when it is present. */
    public static boolean required(List<ErrorDetail> out, List<Object> loc, Object value) {
        if (value == null) {
            out.add(ErrorDetail.missing(loc));
            return false;
        }
        return true;
    }

    /**
     * Refuses a present string holding a character the store cannot keep: U+0000 (PostgreSQL text cannot hold
     * it) or an unpaired UTF-16 surrogate (not encodable as UTF-8: the driver would silently write {@code ?}).
     * True when the string is absent or storable.
     */
    public static boolean text(List<ErrorDetail> out, List<Object> loc, String value) {
        if (value == null || storable(value)) {
            return true;
        }
        out.add(ErrorDetail.stringPatternMismatch(loc));
        return false;
    }

    /** True when {@code value} holds neither U+0000 nor an unpaired surrogate. */
    public static boolean storable(String value) {
        for (int i = 0, n = value.length(); i < n; i++) {
            char c = value.charAt(i);
            if (c >= ' ' && c < Character.MIN_SURROGATE) {
                continue;
            }
            if (c == 0 || Character.isLowSurrogate(c)) {
                return false;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 == n || !Character.isLowSurrogate(value.charAt(i + 1))) {
                    return false;
                }
                i++;
            }
        }
        return true;
    }

    /**
     * {@link #text} then {@link #length}: at most one fault for the string; true when it is absent or passes both.
     */
    public static boolean text(List<ErrorDetail> out, List<Object> loc, String value, int min, int max) {
        if (!text(out, loc, value)) {
            return false;
        }
        int before = out.size();
        length(out, loc, value, min, max);
        return out.size() == before;
    }

    /**
     * Refuses the first unstorable string (value or key) or the first level past {@link StorableJson#MAX_DEPTH}
     * in a JSON value read as a {@code JsonNode} or kept as its text ({@code RawJsonObject}); see
     * {@link StorableJson}.
     */
    public static boolean json(List<ErrorDetail> out, List<Object> loc, Object value) {
        ErrorDetail fault = StorableJson.firstFault(loc, value);
        if (fault == null) {
            return true;
        }
        out.add(fault);
        return false;
    }

    /** Refuses a present timestamp outside {@link #EARLIEST}..{@link #LATEST}; true when absent or within. */
    public static boolean instant(List<ErrorDetail> out, List<Object> loc, Instant value) {
        if (value == null || !value.isBefore(EARLIEST) && !value.isAfter(LATEST)) {
            return true;
        }
        out.add(ErrorDetail.datetimeParsing(loc));
        return false;
    }

    /**
     * The bytes of {@code value} as UTF-8, counted without encoding it (an unpaired surrogate counts as the one
     * byte an encoder would write for it; validation refuses those anyway).
     */
    public static long utf8Bytes(String value) {
        long bytes = 0;
        for (int i = 0, n = value.length(); i < n; i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(value.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                bytes++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    /** Refuses a present string outside {@code min..max} characters; an absent one passes. */
    public static void length(List<ErrorDetail> out, List<Object> loc, String value, int min, int max) {
        if (value == null) {
            return;
        }
        int length = value.codePointCount(0, value.length());
        if (length < min) {
            out.add(ErrorDetail.stringTooShort(loc, min));
        } else if (length > max) {
            out.add(ErrorDetail.stringTooLong(loc, max));
        }
    }

    /** Parses a canonical (8-4-4-4-12) UUID; null when absent or refused. */
    public static UUID uuid(List<ErrorDetail> out, List<Object> loc, String value) {
        if (value == null) {
            return null;
        }
        UUID parsed = Uuids.parse(value);
        if (parsed == null) {
            out.add(ErrorDetail.uuidParsing(loc));
        }
        return parsed;
    }

    /** Refuses a present value that is not one of {@code allowed}; null when absent or refused. */
    public static String oneOf(List<ErrorDetail> out, List<Object> loc, String value, List<String> allowed) {
        if (value == null) {
            return null;
        }
        if (!allowed.contains(value)) {
            out.add(ErrorDetail.enumValue(loc, allowed));
            return null;
        }
        return value;
    }

    /**
     * Parses a whole number within {@code min..max}; null when absent or refused. The number is an optional sign
     * then ASCII digits, with whitespace around it; one too long for a {@code long} is out of range, not unparsable.
     */
    public static Long integer(List<ErrorDetail> out, List<Object> loc, String raw, long min, long max) {
        if (raw == null) {
            return null;
        }
        String text = raw.strip();
        int n = text.length();
        int first = n > 0 && (text.charAt(0) == '+' || text.charAt(0) == '-') ? 1 : 0;
        if (first == n) {
            out.add(ErrorDetail.intParsing(loc));
            return null;
        }
        long small = 0;
        for (int i = first; i < n; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                out.add(ErrorDetail.intParsing(loc));
                return null;
            }
            small = small * 10 + (c - '0');
        }
        // the usual case, without a BigInteger; a longer number may still be in range (leading zeros)
        if (n - first <= LONG_SAFE_DIGITS) {
            return range(out, loc, text.charAt(0) == '-' ? -small : small, min, max);
        }
        BigInteger value = new BigInteger(text);
        if (value.compareTo(BigInteger.valueOf(min)) < 0) {
            out.add(ErrorDetail.greaterThanEqual(loc, min));
            return null;
        }
        if (value.compareTo(BigInteger.valueOf(max)) > 0) {
            out.add(ErrorDetail.lessThanEqual(loc, max));
            return null;
        }
        return value.longValueExact();
    }

    /** Refuses a number outside {@code min..max}; null when refused. */
    public static Long range(List<ErrorDetail> out, List<Object> loc, long value, long min, long max) {
        if (value < min) {
            out.add(ErrorDetail.greaterThanEqual(loc, min));
            return null;
        }
        if (value > max) {
            out.add(ErrorDetail.lessThanEqual(loc, max));
            return null;
        }
        return value;
    }
}
