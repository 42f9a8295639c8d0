package io.outpost.support.json;

import java.time.temporal.Temporal;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
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
     * is {@code datetime_parsing}, any other wrongly typed value {@code json_invalid}. Text that is not JSON, or
     * JSON past the parser's limits (nesting deeper than 1,000 levels, numbers over 1,000 digits), is
     * {@code json_invalid} at {@code base} itself, even when Jackson met it inside a field.
     */
    public static ErrorDetail locate(JsonProcessingException e, List<Object> base) {
        if (causedBy(e, StreamConstraintsException.class)) {
            return ErrorDetail.jsonInvalid(base, "JSON decode error, input exceeds the parser's limits");
        }
        if (causedBy(e, JsonParseException.class) || !(e instanceof JsonMappingException mapping)) {
            return ErrorDetail.jsonInvalid(base, "JSON decode error");
        }
        List<Object> loc = new ArrayList<>(base);
        for (JsonMappingException.Reference ref : mapping.getPath()) {
            loc.add(ref.getFieldName() != null ? ref.getFieldName() : ref.getIndex());
        }
        if (loc.size() == base.size()) {
            return ErrorDetail.jsonInvalid(loc, "JSON decode error");
        }
        if (isTimestamp(mapping)) {
            return ErrorDetail.datetimeParsing(loc);
        }
        return ErrorDetail.jsonInvalid(loc, "Input has the wrong type");
    }

    private static boolean isTimestamp(JsonMappingException e) {
        return e instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null
                && Temporal.class.isAssignableFrom(mismatch.getTargetType());
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
