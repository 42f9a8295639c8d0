package io.outpost.support.json;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;

import io.outpost.model.error.ErrorDetail;

/** Locates a Jackson failure as a DESIGN §5 {@code json_invalid} fault, for HTTP bodies and Kafka values alike. */
public final class JsonFaults {

    private JsonFaults() {
    }

    /** The field path under {@code base} when Jackson knows it (a wrongly typed field), else {@code base} itself. */
    public static ErrorDetail locate(JsonProcessingException e, List<Object> base) {
        List<Object> loc = new ArrayList<>(base);
        if (e instanceof JsonMappingException mapping) {
            for (JsonMappingException.Reference ref : mapping.getPath()) {
                loc.add(ref.getFieldName() != null ? ref.getFieldName() : ref.getIndex());
            }
            if (loc.size() > base.size()) {
                return ErrorDetail.jsonInvalid(loc, "Input has the wrong type");
            }
        }
        return ErrorDetail.jsonInvalid(loc, "JSON decode error");
    }
}
