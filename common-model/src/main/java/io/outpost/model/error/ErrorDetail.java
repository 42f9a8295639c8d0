package io.outpost.model.error;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.stream.Collectors;

import com.fasterxml.jackson.core.JsonStreamContext;

/**
 * One faulty input of a 422 answer (DESIGN §5): where it is ({@code loc}), what is wrong ({@code msg}) and
 * its kind ({@code type}, one of {@link ErrorType}). The factories keep wording and type consistent in every
 * service and in dead-letter reasons.
 */
public record ErrorDetail(List<Object> loc, String msg, String type) {

    public ErrorDetail {
        loc = List.copyOf(loc);
    }

    /** A location: the first element is {@code body}, {@code query}, {@code path} or {@code header}. */
    public static List<Object> loc(Object... parts) {
        return List.of(parts);
    }

    /**
     * {@code base} followed by {@code more}, for a field or an array index. Validation builds one for every field
     * it checks and most are never part of a fault, so this one is a read-through view (one small object, the
     * base not copied) that {@link ErrorDetail} copies only when it is. Unmodifiable, like {@code base} should be.
     */
    public static List<Object> loc(List<Object> base, Object more) {
        return new Nested(base instanceof Nested ? base : List.copyOf(base), more);
    }

    /**
     * {@code base} followed by the keys and indexes that lead to where {@code at} stands in a document being read
     * (a parser's context), outermost first; a key on the way that the store could not keep is shown as
     * {@link #unstorableKey} shows it (it was reported itself).
     */
    public static List<Object> locOf(List<Object> base, JsonStreamContext at) {
        List<Object> names = new ArrayList<>();
        for (JsonStreamContext c = at; c != null && !c.inRoot(); c = c.getParent()) {
            String key = c.getCurrentName();
            names.add(c.inArray() ? (Object) c.getCurrentIndex()
                    : key == null || Constraints.storable(key) ? key : shownKey(key));
        }
        Collections.reverse(names);
        List<Object> loc = new ArrayList<>(base);
        loc.addAll(names);
        return loc;
    }

    /** {@code base} followed by {@code more}, for nested fields and array indexes. */
    public static List<Object> loc(List<Object> base, Object... more) {
        List<Object> all = new ArrayList<>(base);
        all.addAll(List.of(more));
        return all;
    }

    public static ErrorDetail missing(List<Object> loc) {
        return new ErrorDetail(loc, "Field required", ErrorType.MISSING.code());
    }

    public static ErrorDetail intParsing(List<Object> loc) {
        return new ErrorDetail(loc, "Input should be a valid integer", ErrorType.INT_PARSING.code());
    }

    public static ErrorDetail greaterThanEqual(List<Object> loc, long min) {
        return new ErrorDetail(loc, "Input should be greater than or equal to " + min,
                ErrorType.GREATER_THAN_EQUAL.code());
    }

    public static ErrorDetail lessThanEqual(List<Object> loc, long max) {
        return new ErrorDetail(loc, "Input should be less than or equal to " + max, ErrorType.LESS_THAN_EQUAL.code());
    }

    public static ErrorDetail stringTooShort(List<Object> loc, int min) {
        return new ErrorDetail(loc, "String should have at least " + min + " character" + (min == 1 ? "" : "s"),
                ErrorType.STRING_TOO_SHORT.code());
    }

    public static ErrorDetail stringTooLong(List<Object> loc, int max) {
        return new ErrorDetail(loc, "String should have at most " + max + " character" + (max == 1 ? "" : "s"),
                ErrorType.STRING_TOO_LONG.code());
    }

    public static ErrorDetail uuidParsing(List<Object> loc) {
        return new ErrorDetail(loc, "Input should be a valid UUID", ErrorType.UUID_PARSING.code());
    }

    public static ErrorDetail enumValue(List<Object> loc, Collection<String> allowed) {
        String choices = allowed.stream().map(v -> "'" + v + "'").collect(Collectors.joining(", "));
        return new ErrorDetail(loc, "Input should be one of " + choices, ErrorType.ENUM.code());
    }

    public static ErrorDetail literal(List<Object> loc, String expected) {
        return new ErrorDetail(loc, "Input should be '" + expected + "'", ErrorType.LITERAL_ERROR.code());
    }

    public static ErrorDetail jsonInvalid(List<Object> loc, String why) {
        return new ErrorDetail(loc, why, ErrorType.JSON_INVALID.code());
    }

    /**
     * A JSON document (a body, a Kafka value) whose bytes are not UTF-8 JSON text: not well-formed UTF-8 (RFC 3629:
     * an overlong form, an encoded surrogate, a value beyond U+10FFFF, a sequence cut short, a stray continuation
     * byte), or holding a 0x00 byte, as a document in UTF-16 or UTF-32 does (RFC 8259 §8.1: JSON exchanged between
     * systems is UTF-8).
     */
    public static ErrorDetail invalidUtf8(List<Object> loc) {
        return jsonInvalid(loc, "JSON decode error, invalid UTF-8");
    }

    /** A list with fewer than {@code min} entries. */
    public static ErrorDetail tooShort(List<Object> loc, int min) {
        return new ErrorDetail(loc, "List should have at least " + min + " item" + (min == 1 ? "" : "s"),
                ErrorType.TOO_SHORT.code());
    }

    /** A list with more than {@code max} entries. */
    public static ErrorDetail tooLong(List<Object> loc, int max) {
        return new ErrorDetail(loc, "List should have at most " + max + " item" + (max == 1 ? "" : "s"),
                ErrorType.TOO_LONG.code());
    }

    /** A value of the right type that is not acceptable; {@code why} says what would be. */
    public static ErrorDetail valueError(List<Object> loc, String why) {
        return new ErrorDetail(loc, "Value error, " + why, ErrorType.VALUE_ERROR.code());
    }

    /**
     * A parameter given more than once where one value is expected (a query parameter, a form field): which of
     * them was meant cannot be known, and a proxy may have read another one than this service would.
     */
    public static ErrorDetail givenMoreThanOnce(List<Object> loc) {
        return valueError(loc, "given more than once, expected once");
    }

    /**
     * Stands for {@code count} faults a 422 does not list ({@link ValidationErrorResponse#of}), at the common start
     * of their locations ({@code ["query","player_uuids"]}, or {@code []} when they lie in different places).
     */
    public static ErrorDetail notListed(List<Object> loc, int count) {
        return valueError(loc, String.format(Locale.ROOT, "%,d more fault%s not listed", count,
                count == 1 ? "" : "s"));
    }

    /** Text holding a character PostgreSQL cannot keep: U+0000, or half of a UTF-16 surrogate pair. */
    public static ErrorDetail stringPatternMismatch(List<Object> loc) {
        return new ErrorDetail(loc, "String should not contain U+0000 or an unpaired surrogate (U+D800..U+DFFF)",
                ErrorType.STRING_PATTERN_MISMATCH.code());
    }

    /**
     * A JSON key holding a character the store cannot keep, located at {@code objectLoc} (its object's path),
     * then the key with each refused character replaced by U+FFFD, then {@code "[key]"} (pydantic's convention):
     * the key as sent could not even be written into the answer as UTF-8.
     */
    public static ErrorDetail unstorableKey(List<Object> objectLoc, String key) {
        List<Object> at = new ArrayList<>(objectLoc);
        at.add(shownKey(key));
        at.add("[key]");
        return stringPatternMismatch(at);
    }

    /** {@code key} with each character the store cannot keep (U+0000, half a surrogate pair) replaced by U+FFFD. */
    public static String shownKey(String key) {
        StringBuilder shown = new StringBuilder(key.length());
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                shown.append(c).append(key.charAt(++i));
            } else {
                shown.append(c == 0 || Character.isSurrogate(c) ? '\uFFFD' : c);
            }
        }
        return shown.toString();
    }

    /** A timestamp that does not parse, or lies outside {@link Constraints#EARLIEST}..{@link Constraints#LATEST}. */
    public static ErrorDetail datetimeParsing(List<Object> loc) {
        return new ErrorDetail(loc, "Input should be a valid datetime from " + Constraints.EARLIEST + " to "
                + Constraints.LATEST, ErrorType.DATETIME_PARSING.code());
    }

    /** An unmodifiable location: {@code base} (unmodifiable too) then {@code last}. */
    private static final class Nested extends AbstractList<Object> implements RandomAccess {

        private final List<Object> base;
        private final Object last;
        private final int size;

        Nested(List<Object> base, Object last) {
            this.base = base;
            this.last = last;
            this.size = base.size() + 1;
        }

        @Override
        public Object get(int index) {
            Objects.checkIndex(index, size);
            List<Object> at = this;
            // iterative: a deep JSON document nests one view per level
            while (at instanceof Nested nested) {
                if (index == nested.size - 1) {
                    return nested.last;
                }
                at = nested.base;
            }
            return at.get(index);
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public Object[] toArray() {
            Object[] all = new Object[size];
            List<Object> at = this;
            while (at instanceof Nested nested) {
                all[nested.size - 1] = nested.last;
                at = nested.base;
            }
            for (int i = 0; i < at.size(); i++) {
                all[i] = at.get(i);
            }
            return all;
        }
    }

    /** "loc: msg", the one-line form used as a dead-letter reason. */
    public String describe() {
        return loc.stream().map(String::valueOf).collect(Collectors.joining(".")) + ": " + msg + " [" + type + "]";
    }
}
