package io.outpost.support.json;

import java.time.temporal.Temporal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;

import io.outpost.model.error.ErrorDetail;

/** Locates a Jackson failure as a DESIGN §5 fault, for HTTP bodies and Kafka values alike. */
public final class JsonFaults {

    private JsonFaults() {
    }

    /**
     * A field Jackson could not read is located by its path under {@code base}: a timestamp that does not parse
     * is {@code datetime_parsing}, any other wrongly typed value {@code json_invalid}, its message naming the type
     * the field takes when it is text, an integer, an object or a list (in pydantic's words: "Input should be a
     * valid string", "… integer", "… dictionary", "… list"; the values
     * {@link StrictScalarsCustomizer} refuses to coerce land here). Text that is not JSON, or
     * JSON past the parser's limits (nesting deeper than 1,000 levels, numbers over 1,000 digits), or an object
     * naming one key twice, is {@code json_invalid} at {@code base} itself, even when Jackson met it inside a field.
     */
    public static ErrorDetail locate(JsonProcessingException e, List<Object> base) {
        return locate(e, base, false);
    }

    /**
     * As {@link #locate(JsonProcessingException, List)}, for a failure to read the value at {@code loc} itself as
     * its type (not a whole document), which is a wrongly typed value even when Jackson names no path inside it.
     */
    public static ErrorDetail locateValue(JsonProcessingException e, List<Object> loc) {
        return locate(e, loc, true);
    }

    private static ErrorDetail locate(JsonProcessingException e, List<Object> base, boolean valueAtBase) {
        if (causedBy(e, StreamConstraintsException.class)) {
            return ErrorDetail.jsonInvalid(base, "JSON decode error, input exceeds the parser's limits");
        }
        if (duplicateKey(e)) {
            return ErrorDetail.jsonInvalid(base, "JSON decode error, a key is given twice in one object");
        }
        if (causedBy(e, JsonParseException.class) || !(e instanceof JsonMappingException mapping)) {
            return ErrorDetail.jsonInvalid(base, "JSON decode error");
        }
        List<Object> loc = new ArrayList<>(base);
        for (JsonMappingException.Reference ref : mapping.getPath()) {
            loc.add(ref.getFieldName() != null ? ref.getFieldName() : ref.getIndex());
        }
        if (loc.size() == base.size() && !valueAtBase) {
            return ErrorDetail.jsonInvalid(loc, "JSON decode error");
        }
        Class<?> expected = targetType(mapping);
        if (expected != null && Temporal.class.isAssignableFrom(expected)) {
            return ErrorDetail.datetimeParsing(loc);
        }
        return ErrorDetail.jsonInvalid(loc, wrongType(expected));
    }

    /**
     * A whole document that is JSON but not the object expected ({@code [1,2]} for an event): {@code json_invalid}
     * at {@code base}, "Input should be a valid dictionary", as a field of that kind is.
     */
    public static ErrorDetail notAnObject(List<Object> base) {
        return ErrorDetail.jsonInvalid(base, wrongType(Map.class));
    }

    /** Whether values of {@code type} are read from a JSON object ("… a valid dictionary" when they are not). */
    static boolean isObject(Class<?> type) {
        return Map.class.isAssignableFrom(type) || type.isRecord();
    }

    private static String wrongType(Class<?> expected) {
        if (expected == String.class) {
            return "Input should be a valid string";
        }
        if (expected == Long.class || expected == long.class || expected == Integer.class || expected == int.class) {
            return "Input should be a valid integer";
        }
        if (expected != null && isObject(expected)) {
            return "Input should be a valid dictionary";
        }
        if (expected != null && (Collection.class.isAssignableFrom(expected) || expected.isArray())) {
            return "Input should be a valid list";
        }
        return "Input has the wrong type";
    }

    /** The Java type the field takes, when Jackson names it: null when it does not. */
    private static Class<?> targetType(JsonMappingException e) {
        if (e instanceof MismatchedInputException mismatch) {
            return mismatch.getTargetType();
        }
        return e.getCause() instanceof InputCoercionException range ? range.getTargetType() : null;
    }

    /** What {@link StrictScalarsCustomizer}'s duplicate detection throws (Jackson names no type for it). */
    private static boolean duplicateKey(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof JsonParseException parse && parse.getOriginalMessage() != null
                    && parse.getOriginalMessage().startsWith("Duplicate field '")) {
                return true;
            }
        }
        return false;
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
