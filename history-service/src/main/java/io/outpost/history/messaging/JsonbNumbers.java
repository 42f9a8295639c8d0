package io.outpost.history.messaging;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.outpost.history.store.JsonbText;
import io.outpost.model.error.ErrorDetail;

/**
 * Finds a number of a snapshot whose text, as PostgreSQL writes it back, is longer than
 * {@value JsonbText#MAX_NUMBER_CHARS} characters. {@code jsonb} keeps numbers as {@code numeric} and writes them
 * without an exponent: {@code 1e131071} is 8 characters in a record and 131,072 digits on every read of it. Refused
 * here, the dead letter says where it is. Every number {@code numeric} cannot hold (more than 131,072 digits
 * before the point or 16,383 after) is longer than that too.
 *
 * <p>Every snapshot of the ingest is walked, so the walk allocates one small frame per object or array and
 * nothing per value: the fault's location is built from the frames only when there is a fault, and an
 * {@code int} or {@code long} (it always fits) is not converted to a {@link BigDecimal}.
 */
final class JsonbNumbers {

    static final String NUMBER_TOO_LONG = "number should have at most " + JsonbText.MAX_NUMBER_CHARS
            + " characters written without an exponent";

    /**
     * An object or array being walked, how it was reached from its parent ({@code name}: key or index), and where
     * the walk is in it: {@code fields} for an object, {@code next} for an array.
     */
    private static final class Frame {
        final Frame parent;
        final Object name;
        final JsonNode node;
        final Iterator<Map.Entry<String, JsonNode>> fields;
        int next;

        Frame(Frame parent, Object name, JsonNode node) {
            this.parent = parent;
            this.name = name;
            this.node = node;
            this.fields = node.isObject() ? node.properties().iterator() : null;
        }
    }

    private JsonbNumbers() {
    }

    /** The first such number of {@code value} in document order, located under {@code loc}; null when none. */
    static ErrorDetail firstFault(List<Object> loc, JsonNode value) {
        if (!fits(value)) {
            return fault(loc, null, null);
        }
        if (!value.isContainerNode()) {
            return null;
        }
        Frame frame = new Frame(null, null, value);
        while (frame != null) {
            Object name;
            JsonNode child;
            if (frame.fields != null && frame.fields.hasNext()) {
                Map.Entry<String, JsonNode> field = frame.fields.next();
                name = field.getKey();
                child = field.getValue();
            } else if (frame.fields == null && frame.next < frame.node.size()) {
                name = frame.next;
                child = frame.node.get(frame.next++);
            } else {
                frame = frame.parent;
                continue;
            }
            if (!fits(child)) {
                return fault(loc, frame, name);
            }
            if (child.isContainerNode()) {
                frame = new Frame(frame, name, child);
            }
        }
        return null;
    }

    /** False for a number written out in more than {@value JsonbText#MAX_NUMBER_CHARS} characters. */
    private static boolean fits(JsonNode node) {
        return !node.isNumber() || node.isInt() || node.isLong()
                || JsonbText.numberChars(node) <= JsonbText.MAX_NUMBER_CHARS;
    }

    /** The fault of the value reached by {@code name} in {@code frame} (the root itself when frame is null). */
    private static ErrorDetail fault(List<Object> loc, Frame frame, Object name) {
        List<Object> names = new ArrayList<>();
        if (frame != null) {
            names.add(name);
            for (Frame f = frame; f.parent != null; f = f.parent) {
                names.add(f.name);
            }
            Collections.reverse(names);
        }
        List<Object> at = new ArrayList<>(loc);
        at.addAll(names);
        return ErrorDetail.valueError(at, NUMBER_TOO_LONG);
    }
}
