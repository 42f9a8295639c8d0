package io.outpost.history.messaging;

import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.outpost.model.error.ErrorDetail;

/**
 * Finds a number of a snapshot that PostgreSQL's {@code numeric}, which {@code jsonb} keeps numbers in, cannot
 * hold: more than {@value #MAX_INTEGER_DIGITS} digits before the decimal point or more than
 * {@value #MAX_FRACTION_DIGITS} after it, counted as written ({@code 1.0e-16383} has 16,384 after it). The store
 * would refuse it ({@code value overflows numeric format}); found here, the dead letter says where it is.
 */
final class JsonbNumbers {

    static final int MAX_INTEGER_DIGITS = 131_072;
    static final int MAX_FRACTION_DIGITS = 16_383;

    private record Step(JsonNode node, List<Object> loc) {
    }

    private JsonbNumbers() {
    }

    /** The first such number of {@code value} in document order, located under {@code loc}; null when none. */
    static ErrorDetail firstFault(List<Object> loc, JsonNode value) {
        Deque<Step> pending = new ArrayDeque<>();
        pending.push(new Step(value, loc));
        while (!pending.isEmpty()) {
            Step step = pending.pop();
            JsonNode node = step.node();
            if (node.isNumber() && !fits(node.decimalValue())) {
                return ErrorDetail.valueError(step.loc(), "number should have at most " + MAX_INTEGER_DIGITS
                        + " digits before the decimal point and " + MAX_FRACTION_DIGITS + " after");
            }
            List<Step> children = new ArrayList<>();
            if (node.isObject()) {
                for (Map.Entry<String, JsonNode> field : node.properties()) {
                    children.add(new Step(field.getValue(), ErrorDetail.loc(step.loc(), field.getKey())));
                }
            } else if (node.isArray()) {
                for (int i = 0; i < node.size(); i++) {
                    children.add(new Step(node.get(i), ErrorDetail.loc(step.loc(), i)));
                }
            }
            for (int i = children.size() - 1; i >= 0; i--) {
                pending.push(children.get(i));
            }
        }
        return null;
    }

    private static boolean fits(BigDecimal number) {
        return number.scale() <= MAX_FRACTION_DIGITS
                && (number.signum() == 0 || (long) number.precision() - number.scale() <= MAX_INTEGER_DIGITS);
    }
}
