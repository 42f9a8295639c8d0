package io.outpost.history.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.outpost.model.error.ErrorDetail;

/** The first number written out in more than 1,000 characters, located as the dead letter shows it. */
class JsonbNumbersTest {

    private static final JsonNodeFactory JSON = JsonNodeFactory.withExactBigDecimals(true);
    private static final List<Object> AT = ErrorDetail.loc("value", "version");
    private static final String WHY = "Value error, number should have at most 1000 characters written without an exponent";
    /** 0. and 999 digits: 1,001 characters. */
    private static final BigDecimal TOO_FINE = new BigDecimal("1e-999");
    private static final BigDecimal TOO_LARGE = new BigDecimal(BigInteger.TEN.pow(1_000));

    @Test
    void locatesTheFirstFaultInDocumentOrderByKeysAndIndexes() {
        ObjectNode snapshot = JSON.objectNode();
        snapshot.put("name", "admin").put("count", Long.MAX_VALUE).put("ok", new BigDecimal("1.5"));
        ArrayNode rules = snapshot.putArray("rules");
        rules.add(1).add(JSON.objectNode().put("x", 2));
        rules.addObject().putArray("limits").add(3).add(TOO_FINE);
        snapshot.put("later", TOO_LARGE);

        assertThat(JsonbNumbers.firstFault(AT, snapshot)).isEqualTo(
                new ErrorDetail(List.of("value", "version", "rules", 2, "limits", 1), WHY, "value_error"));
    }

    @Test
    void locatesAFaultyRootAtTheGivenLocation() {
        assertThat(JsonbNumbers.firstFault(AT, JSON.numberNode(TOO_LARGE)))
                .isEqualTo(new ErrorDetail(List.of("value", "version"), WHY, "value_error"));
    }

    /** 1,000 characters as PostgreSQL writes them: digits, a sign, a point; a zero has no sign and one integer digit. */
    @Test
    void acceptsEveryIntAndLongAndNumbersAtTheLimits() {
        ArrayNode fine = JSON.arrayNode().add(Integer.MIN_VALUE).add(Long.MIN_VALUE).add(Long.MAX_VALUE)
                .add(new BigDecimal("1e-998")).add(new BigDecimal(BigInteger.TEN.pow(999)))
                .add(new BigDecimal(BigInteger.TEN.pow(998).negate())).add(new BigDecimal("-1.5e-996"))
                .add(new BigDecimal("0e+99999")).add(new BigDecimal("-0e-998")).add(new BigDecimal("9.99e999"))
                .add(BigInteger.TEN.pow(100)).add(1.5d);
        fine.addObject().putArray("empty");

        assertThat(JsonbNumbers.firstFault(AT, fine)).isNull();
        assertThat(JsonbNumbers.firstFault(AT, JSON.textNode("1e-99999"))).isNull();
    }

    @Test
    void refusesOneCharacterMoreAndEverythingNumericCannotHold() {
        for (String number : List.of("1e1000", "-1e999", "1e-999", "0e-999", "-1.5e-998", "9.99e1000", "1e131071",
                "1.0e-16383", "1e200000")) {
            assertThat(JsonbNumbers.firstFault(AT, JSON.arrayNode().add(1).add(new BigDecimal(number))))
                    .as(number).isEqualTo(new ErrorDetail(List.of("value", "version", 1), WHY, "value_error"));
        }
    }

    /** Random snapshots: the same answer as the walk before, which located every value as it went. */
    @Test
    void answersAsTheWalkBeforeOnRandomSnapshots() {
        Random random = new Random(3);
        for (int n = 0; n < 2_000; n++) {
            JsonNode snapshot = random(random, 0);
            assertThat(JsonbNumbers.firstFault(AT, snapshot)).as(snapshot.toString()).isEqualTo(before(AT, snapshot));
        }
    }

    private static JsonNode random(Random random, int depth) {
        int kind = random.nextInt(depth > 4 ? 5 : 7);
        switch (kind) {
            case 0:
                return JSON.numberNode(random.nextInt(50) == 0 ? TOO_FINE : BigDecimal.valueOf(random.nextInt(), 2));
            case 1:
                return JSON.numberNode(random.nextLong());
            case 2:
                return random.nextInt(80) == 0 ? JSON.numberNode(TOO_LARGE) : JSON.numberNode(random.nextInt());
            case 3:
                return JSON.textNode("t" + random.nextInt(9));
            case 4:
                return JSON.booleanNode(random.nextBoolean());
            case 5:
                ArrayNode array = JSON.arrayNode();
                for (int i = random.nextInt(4); i > 0; i--) {
                    array.add(random(random, depth + 1));
                }
                return array;
            default:
                ObjectNode object = JSON.objectNode();
                for (int i = random.nextInt(4); i > 0; i--) {
                    object.set("k" + random.nextInt(6), random(random, depth + 1));
                }
                return object;
        }
    }

    /** The walk before: every value with its location built as it was met, every number written out in full. */
    private static ErrorDetail before(List<Object> loc, JsonNode value) {
        record Step(JsonNode node, List<Object> loc) {
        }
        Deque<Step> pending = new ArrayDeque<>();
        pending.push(new Step(value, loc));
        while (!pending.isEmpty()) {
            Step step = pending.pop();
            JsonNode node = step.node();
            if (node.isNumber() && node.decimalValue().toPlainString().length() > 1_000) {
                return ErrorDetail.valueError(step.loc(), "number should have at most 1000 characters written "
                        + "without an exponent");
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
}
