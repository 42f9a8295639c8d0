package io.outpost.model.error;

import static io.outpost.model.TestJson.parse;
import static io.outpost.model.error.ErrorDetail.loc;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.outpost.model.RawJsonObject;

/** What the store cannot keep (DESIGN §5): U+0000, unpaired surrogates, timestamps outside 0001..9999, deep JSON. */
class StorableTextTest {

    private static final List<Object> AT = loc("value", "custom_data");

    private final List<ErrorDetail> out = new ArrayList<>();

    private static ErrorDetail mismatch(Object... loc) {
        return ErrorDetail.stringPatternMismatch(List.of(loc));
    }

    @ParameterizedTest
    @ValueSource(strings = { "\u0000", "a\u0000", "\u0000a", "a\u0000b", "\uD800", "a\uD800", "\uD800a", "\uDC00",
        "a\uDC00b", "\uDE00\uD83D", "\uD83D\uD83D\uDE00" })
    void refusesNulAndUnpairedSurrogatesAnywhere(String text) {
        assertThat(Constraints.text(out, loc("body", "message"), text)).isFalse();
        assertThat(out).containsExactly(mismatch("body", "message"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "plain", "\u0001\u001f\t\n", "\uD83D\uDE00", "a\uD83D\uDE00b", "\uFFFF\uFFFE",
        "\uE000", "\u00e9\u0130" })
    void acceptsEverythingElseIncludingOtherControlsAndPairedSurrogates(String text) {
        assertThat(Constraints.text(out, AT, text)).isTrue();
        assertThat(Constraints.text(out, AT, null)).isTrue();
        assertThat(out).isEmpty();
    }

    @Test
    void textWithLengthReportsOneFaultAndChecksTheCharactersFirst() {
        assertThat(Constraints.text(out, AT, "\u0000".repeat(300), 1, 256)).isFalse();
        assertThat(Constraints.text(out, AT, "t".repeat(257), 1, 256)).isFalse();
        assertThat(Constraints.text(out, AT, "t".repeat(256), 1, 256)).isTrue();
        assertThat(out).containsExactly(mismatch("value", "custom_data"), ErrorDetail.stringTooLong(AT, 256));
    }

    @Test
    void acceptsTimestampsAtBothBounds() {
        assertThat(Constraints.instant(out, AT, Instant.parse("0001-01-01T00:00:00Z"))).isTrue();
        assertThat(Constraints.instant(out, AT, Instant.parse("9999-12-31T23:59:59Z"))).isTrue();
        assertThat(Constraints.instant(out, AT, null)).isTrue();
        assertThat(out).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = { "0000-12-31T23:59:59.999999999Z", "-0001-01-01T00:00:00Z", "9999-12-31T23:59:59.000001Z",
        "+10000-01-01T00:00:00Z", "+300000-01-01T00:00:00Z", "-1000000000-01-01T00:00:00Z" })
    void refusesTimestampsPastEitherBound(String instant) {
        assertThat(Constraints.instant(out, AT, Instant.parse(instant))).isFalse();
        assertThat(out).containsExactly(ErrorDetail.datetimeParsing(AT));
    }

    @Test
    void locatesANestedValueByItsKeysAndIndexes() {
        JsonNode value = parse("{\"a\":[1,{\"b\":\"ok\",\"c\":\"x\\u0000\"}],\"d\":\"\\u0000\"}");

        assertThat(Constraints.json(out, AT, value)).isFalse();
        assertThat(out).containsExactly(mismatch("value", "custom_data", "a", 1, "c"));
    }

    @Test
    void locatesAKeyByItsObjectThenTheKeyWithRefusedCharactersReplacedThenKeyMarker() {
        JsonNode value = parse("{\"outer\":[{\"fine\":\"v\",\"k\\u0000\\ud800\\ud83d\\ude00\":\"v\"}]}");

        assertThat(Constraints.json(out, AT, value)).isFalse();
        assertThat(out).containsExactly(mismatch("value", "custom_data", "outer", 0, "k\uFFFD\uFFFD\uD83D\uDE00", "[key]"));
    }

    @Test
    void reportsOnlyTheFirstFaultInDocumentOrder() {
        JsonNode value = parse("{\"first\":{\"x\\u0000\":1},\"second\":\"\\u0000\"}");

        Constraints.json(out, AT, value);

        assertThat(out).containsExactly(mismatch("value", "custom_data", "first", "x\uFFFD", "[key]"));
    }

    @Test
    void acceptsAStringRootAndScalarsAndRefusesAnUnstorableStringRoot() {
        assertThat(Constraints.json(out, AT, parse("[1, 2.50, true, null, \"\\uD83D\\uDE00\"]"))).isTrue();
        assertThat(Constraints.json(out, AT, JsonNodeFactory.instance.textNode("fine"))).isTrue();
        assertThat(Constraints.json(out, AT, null)).isTrue();
        assertThat(Constraints.json(out, AT, JsonNodeFactory.instance.textNode("\uDBFF"))).isFalse();
        assertThat(out).containsExactly(mismatch("value", "custom_data"));
    }

    /** A value kept as its text is walked with the same rules, and located the same way, as its tree. */
    @ParameterizedTest
    @ValueSource(strings = { "{\"a\":[1,{\"b\":\"ok\",\"c\":\"x\\u0000\"}],\"d\":\"\\u0000\"}",
        "{\"first\":{\"x\\u0000\":1},\"second\":\"\\u0000\"}", "{\"o\":[[{\"k\\ud800\\ud83d\\ude00\":null}]]}",
        "{\"s\":[\"\\udc00\"]}", "{\"n\":[1.5,true,null,{},[]],\"t\":\"\\ud83d\\ude00\"}", "{}" })
    void findsTheSameFaultInTheTextAsInTheTree(String json) {
        List<ErrorDetail> fromText = new ArrayList<>();
        List<ErrorDetail> fromTree = new ArrayList<>();

        Constraints.json(fromText, AT, new RawJsonObject(json));
        Constraints.json(fromTree, AT, parse(json));

        assertThat(fromText).isEqualTo(fromTree);
    }

    @Test
    void findsTheDepthFaultInTheTextAtTheSamePlaceAsInTheTree() {
        for (int depth : new int[] { StorableJson.MAX_DEPTH, StorableJson.MAX_DEPTH + 1, 1000 }) {
            String json = "{\"k\":" + "[".repeat(depth - 1) + "]".repeat(depth - 1) + "}";
            List<ErrorDetail> fromText = new ArrayList<>();
            List<ErrorDetail> fromTree = new ArrayList<>();

            Constraints.json(fromText, AT, new RawJsonObject(json));
            Constraints.json(fromTree, AT, parse(json));

            assertThat(fromText).as("depth %d", depth).isEqualTo(fromTree).hasSize(depth > StorableJson.MAX_DEPTH ? 1 : 0);
        }
    }

    @Test
    void acceptsNestingAtTheLimitAndRefusesOneLevelPast() {
        assertThat(Constraints.json(out, AT, nestedLists(StorableJson.MAX_DEPTH))).isTrue();
        assertThat(out).isEmpty();

        assertThat(Constraints.json(out, AT, nestedLists(StorableJson.MAX_DEPTH + 1))).isFalse();
        List<Object> expected = new ArrayList<>(AT);
        for (int i = 1; i <= StorableJson.MAX_DEPTH; i++) {
            expected.add(0);
        }
        assertThat(out).containsExactly(ErrorDetail.valueError(expected, "JSON should be nested at most 128 levels deep"));
    }

    @Test
    void walksNestingFarBeyondAnyStackWithoutOverflowing() {
        ArrayNode root = JsonNodeFactory.instance.arrayNode();
        ArrayNode node = root;
        for (int i = 0; i < 200_000; i++) {
            node = node.addArray();
        }
        assertThat(Constraints.json(out, AT, root)).isFalse();
        assertThat(out).extracting(ErrorDetail::type).containsExactly("value_error");
    }

    /** {@code [[[…]]]} with {@code depth} levels, innermost holding one string. */
    private static JsonNode nestedLists(int depth) {
        ArrayNode root = JsonNodeFactory.instance.arrayNode();
        ArrayNode node = root;
        for (int i = 1; i < depth; i++) {
            node = node.addArray();
        }
        node.add("leaf");
        return root;
    }
}
