package io.outpost.model.error;

import java.math.BigInteger;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The checks behind every limit of spec §8, shared by event validation and HTTP input parsing so that the
 * same input is refused the same way everywhere. Each check appends at most one {@link ErrorDetail} to
 * {@code out}. Lengths count Unicode code points ("characters"), not UTF-16 units.
 */
public final class Constraints {

    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern INTEGER_TEXT = Pattern.compile("[+-]?[0-9]+");

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
        if (!UUID_TEXT.matcher(value).matches()) {
            out.add(ErrorDetail.uuidParsing(loc));
            return null;
        }
        return UUID.fromString(value);
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

    /** Parses a whole number within {@code min..max}; null when absent or refused. */
    public static Long integer(List<ErrorDetail> out, List<Object> loc, String raw, long min, long max) {
        if (raw == null) {
            return null;
        }
        String text = raw.strip();
        if (!INTEGER_TEXT.matcher(text).matches()) {
            out.add(ErrorDetail.intParsing(loc));
            return null;
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
