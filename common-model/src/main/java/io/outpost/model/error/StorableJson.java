package io.outpost.model.error;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;

import io.outpost.model.RawJsonObject;

/**
 * Finds the first fault in a JSON value kept as sent ({@code custom_data}, a history {@code version}): a key or
 * string holding a character the store cannot keep ({@link Constraints#storable}), or nesting deeper than
 * {@link #MAX_DEPTH}. The walk is iterative, so no depth can exhaust the stack, and in document order, so the
 * fault reported is the first a reader would meet; one fault per value keeps answers and dead-letter reasons short.
 *
 * <p>Where: a string value at its path of keys and indexes ({@code [..., "custom_data", "a", 0]}); a key at the
 * path of its object, then the key as {@link ErrorDetail#unstorableKey} shows it.
 *
 * <p>A value kept as its text ({@link RawJsonObject}) is walked token by token, with the same rules and the same
 * answers as the bound value it stands for; nothing is built but the fault.
 */
final class StorableJson {

    /**
     * Levels of nesting accepted, the value itself being level 1. Far beyond real data, and far enough below
     * Jackson's limit of 1,000 that the value still serialises inside the pages that carry it.
     */
    static final int MAX_DEPTH = 128;

    /** One value met on the walk: how it was reached from its parent (key or index) and how deep it sits. */
    private record Step(Step parent, Object name, boolean key, Object value, int depth) {
    }

    /** Reads a {@link RawJsonObject}'s text (character-based: an unpaired surrogate is read, to be refused). */
    private static final JsonFactory TEXT = new JsonFactory();

    private StorableJson() {
    }

    /**
     * The first fault of {@code root} (a {@code JsonNode} or a {@link RawJsonObject}; null holds none) located under
     * {@code loc}; null when it can be stored as it is.
     */
    static ErrorDetail firstFault(List<Object> loc, Object root) {
        if (root instanceof RawJsonObject text) {
            return firstFault(loc, text);
        }
        Deque<Step> pending = new ArrayDeque<>();
        pending.push(new Step(null, null, false, root, 1));
        while (!pending.isEmpty()) {
            Step step = pending.pop();
            if (step.key() && !Constraints.storable((String) step.name())) {
                return ErrorDetail.unstorableKey(path(loc, step.parent()), (String) step.name());
            }
            Object value = step.value();
            String text = value instanceof JsonNode node ? node.textValue() : null;
            if (text != null) {
                if (!Constraints.storable(text)) {
                    return ErrorDetail.stringPatternMismatch(path(loc, step));
                }
                continue;
            }
            if (step.depth() > MAX_DEPTH && isContainer(value)) {
                return ErrorDetail.valueError(path(loc, step), "JSON should be nested at most " + MAX_DEPTH
                        + " levels deep");
            }
            List<Step> children = children(step);
            Collections.reverse(children);
            children.forEach(pending::push);
        }
        return null;
    }

    /** The same walk over a value's text, in document order: keys, then strings and containers as they come. */
    private static ErrorDetail firstFault(List<Object> loc, RawJsonObject value) {
        try (JsonParser p = TEXT.createParser(value.json())) {
            for (JsonToken token = p.nextToken(); token != null; token = p.nextToken()) {
                JsonStreamContext at = p.getParsingContext();
                switch (token) {
                    case FIELD_NAME -> {
                        if (!Constraints.storable(p.currentName())) {
                            return ErrorDetail.unstorableKey(ErrorDetail.locOf(loc, at.getParent()), p.currentName());
                        }
                    }
                    case VALUE_STRING -> {
                        if (!Constraints.storable(p.getText())) {
                            return ErrorDetail.stringPatternMismatch(ErrorDetail.locOf(loc, at));
                        }
                    }
                    case START_OBJECT, START_ARRAY -> {
                        if (at.getNestingDepth() > MAX_DEPTH) {
                            return ErrorDetail.valueError(ErrorDetail.locOf(loc, at.getParent()),
                                    "JSON should be nested at most " + MAX_DEPTH + " levels deep");
                        }
                    }
                    default -> {
                        // numbers, booleans, null and the ends of containers hold nothing to refuse
                    }
                }
            }
            return null;
        } catch (IOException e) {
            return ErrorDetail.jsonInvalid(loc, "JSON decode error");
        }
    }

    private static boolean isContainer(Object value) {
        return value instanceof JsonNode node && node.isContainerNode();
    }

    /** The members of an object or array, in document order; empty for anything else. */
    private static List<Step> children(Step parent) {
        List<Step> children = new ArrayList<>();
        int depth = parent.depth() + 1;
        Object value = parent.value();
        if (value instanceof JsonNode node && node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                children.add(new Step(parent, field.getKey(), true, field.getValue(), depth));
            }
        } else if (value instanceof JsonNode node && node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                children.add(new Step(parent, i, false, node.get(i), depth));
            }
        }
        return children;
    }

    /** {@code loc} followed by the keys and indexes that lead from the root to {@code step}. */
    private static List<Object> path(List<Object> loc, Step step) {
        List<Object> names = new ArrayList<>();
        for (Step s = step; s != null && s.parent() != null; s = s.parent()) {
            names.add(s.name());
        }
        Collections.reverse(names);
        List<Object> at = new ArrayList<>(loc);
        at.addAll(names);
        return at;
    }
}
