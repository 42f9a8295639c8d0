package io.outpost.model.error;

import static io.outpost.model.error.ErrorDetail.loc;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConstraintsTest {

    private static final List<Object> AT = loc("query", "page_size");
    private static final List<String> STRATEGIES = List.of("latest", "earliest");

    private final List<ErrorDetail> out = new ArrayList<>();

    @ParameterizedTest
    @ValueSource(strings = {"abc", "1.5", "", "  ", "1e3", "0x10"})
    void refusesNonIntegerText(String raw) {
        assertThat(Constraints.integer(out, AT, raw, 1, 10000)).isNull();
        assertThat(out).containsExactly(
                new ErrorDetail(AT, "Input should be a valid integer", "int_parsing"));
    }

    @Test
    void acceptsIntegerSurroundedByWhitespace() {
        assertThat(Constraints.integer(out, AT, " 7 ", 1, 10000)).isEqualTo(7L);
        assertThat(out).isEmpty();
    }

    @Test
    void acceptsSignedIntegers() {
        assertThat(Constraints.integer(out, AT, "-3", -5, 5)).isEqualTo(-3L);
        assertThat(Constraints.integer(out, AT, "+4", -5, 5)).isEqualTo(4L);
        assertThat(out).isEmpty();
    }

    @Test
    void passesAbsentInteger() {
        assertThat(Constraints.integer(out, AT, null, 1, 100)).isNull();
        assertThat(out).isEmpty();
    }

    @Test
    void acceptsIntegerAtBothBounds() {
        assertThat(Constraints.integer(out, AT, "1", 1, 100)).isEqualTo(1L);
        assertThat(Constraints.integer(out, AT, "100", 1, 100)).isEqualTo(100L);
        assertThat(out).isEmpty();
    }

    @Test
    void refusesIntegerOneBelowMinimum() {
        assertThat(Constraints.integer(out, AT, "0", 1, 100)).isNull();
        assertThat(out).containsExactly(
                new ErrorDetail(AT, "Input should be greater than or equal to 1", "greater_than_equal"));
    }

    @Test
    void refusesIntegerOneAboveMaximum() {
        assertThat(Constraints.integer(out, AT, "101", 1, 100)).isNull();
        assertThat(out).containsExactly(
                new ErrorDetail(AT, "Input should be less than or equal to 100", "less_than_equal"));
    }

    @Test
    void refusesIntegersBeyondLongAsOutOfRangeNotUnparsable() {
        assertThat(Constraints.integer(out, AT, "100000000000000000000", 1, 100)).isNull();
        assertThat(Constraints.integer(out, AT, "-100000000000000000000", 1, 100)).isNull();
        assertThat(out).containsExactly(
                new ErrorDetail(AT, "Input should be less than or equal to 100", "less_than_equal"),
                new ErrorDetail(AT, "Input should be greater than or equal to 1", "greater_than_equal"));
    }

    /** The check before the hand parser: a regular expression, then a BigInteger. */
    private static Long integerBefore(List<ErrorDetail> out, String raw, long min, long max) {
        if (raw == null) {
            return null;
        }
        String text = raw.strip();
        if (!java.util.regex.Pattern.matches("[+-]?[0-9]+", text)) {
            out.add(ErrorDetail.intParsing(AT));
            return null;
        }
        BigInteger value = new BigInteger(text);
        if (value.compareTo(BigInteger.valueOf(min)) < 0) {
            out.add(ErrorDetail.greaterThanEqual(AT, min));
            return null;
        }
        if (value.compareTo(BigInteger.valueOf(max)) > 0) {
            out.add(ErrorDetail.lessThanEqual(AT, max));
            return null;
        }
        return value.longValueExact();
    }

    @Test
    void integerDecidesAsBeforeWithTheSameWords() {
        List<String> numbers = new ArrayList<>(List.of("0", "-0", "+0", "7", "+7", "-7", "00007", "1", "100", "101",
                "10000", "10001", "999999999999999999", "-999999999999999999", "1000000000000000000",
                "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                "+9223372036854775807", "0000000000000000000000000000042", "-0000000000000000000000000000042",
                "99999999999999999999999999999999999999", "-99999999999999999999999999999999999999"));
        List<String> texts = new ArrayList<>(List.of("", " ", "+", "-", "+-1", "--1", "++1", "1-", "1+", "1 2", "1_000",
                "1.0", "1e3", "0x10", "\u0661", "\uFF11", "1\u0660", "\u0660", "\uFF10\uFF10", "١٢٣", "\u00A01",
                "1\u00A0", "\u20031\u2003", "\t-3\n", " +4 ", "\u3000+5\u3000", "abc"));
        for (String number : numbers) {
            texts.add(number);
            texts.add(" " + number + "\t");
            texts.add(number + "x");
            texts.add("x" + number);
        }
        long[][] ranges = {{1, 10_000}, {-5, 5}, {0, Long.MAX_VALUE}, {Long.MIN_VALUE, Long.MAX_VALUE},
            {Long.MIN_VALUE, -1}, {1, 100}};
        for (String text : texts) {
            for (long[] range : ranges) {
                List<ErrorDetail> expected = new ArrayList<>();
                Long before = integerBefore(expected, text, range[0], range[1]);
                List<ErrorDetail> actual = new ArrayList<>();
                assertThat(Constraints.integer(actual, AT, text, range[0], range[1])).as(text).isEqualTo(before);
                assertThat(actual).as(text).isEqualTo(expected);
            }
        }
    }

    @Test
    void rangeChecksNumbersAlreadyParsed() {
        assertThat(Constraints.range(out, AT, 900, 0, 900)).isEqualTo(900L);
        assertThat(Constraints.range(out, AT, 901, 0, 900)).isNull();
        assertThat(Constraints.range(out, AT, -1, 0, 900)).isNull();
        assertThat(out).containsExactly(
                new ErrorDetail(AT, "Input should be less than or equal to 900", "less_than_equal"),
                new ErrorDetail(AT, "Input should be greater than or equal to 0", "greater_than_equal"));
    }

    @Test
    void acceptsUppercaseUuid() {
        String text = "5F0C6D4E-8A1B-4C2D-9E3F-0A1B2C3D4E5F";

        assertThat(Constraints.uuid(out, AT, text)).isEqualTo(UUID.fromString(text.toLowerCase()));
        assertThat(out).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"not-a-uuid", "1-1-1-1-1", "", "5f0c6d4e8a1b4c2d9e3f0a1b2c3d4e5f",
        "5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5", "{5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f}",
        "5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5g"})
    void refusesNonCanonicalUuid(String text) {
        assertThat(Constraints.uuid(out, AT, text)).isNull();
        assertThat(out).containsExactly(new ErrorDetail(AT, "Input should be a valid UUID", "uuid_parsing"));
    }

    @Test
    void passesAbsentUuid() {
        assertThat(Constraints.uuid(out, AT, null)).isNull();
        assertThat(out).isEmpty();
    }

    @Test
    void oneOfAcceptsAllowedValue() {
        assertThat(Constraints.oneOf(out, AT, "earliest", STRATEGIES)).isEqualTo("earliest");
        assertThat(Constraints.oneOf(out, AT, null, STRATEGIES)).isNull();
        assertThat(out).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"newest", "Latest", "", " latest"})
    void oneOfRefusesOtherValuesListingAllowedOnes(String value) {
        assertThat(Constraints.oneOf(out, AT, value, STRATEGIES)).isNull();
        assertThat(out).containsExactly(
                new ErrorDetail(AT, "Input should be one of 'latest', 'earliest'", "enum"));
    }

    @Test
    void lengthAcceptsBothBoundsAndAbsentValue() {
        Constraints.length(out, AT, "a", 1, 3);
        Constraints.length(out, AT, "abc", 1, 3);
        Constraints.length(out, AT, null, 1, 3);
        assertThat(out).isEmpty();
    }

    @Test
    void lengthRefusesOnePastEachBound() {
        Constraints.length(out, AT, "", 1, 3);
        Constraints.length(out, AT, "abcd", 1, 3);
        assertThat(out).containsExactly(
                new ErrorDetail(AT, "String should have at least 1 character", "string_too_short"),
                new ErrorDetail(AT, "String should have at most 3 characters", "string_too_long"));
    }

    @Test
    void lengthCountsCodePointsNotUtf16Units() {
        String threeEmoji = "\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00";
        assertThat(threeEmoji).hasSize(6);

        Constraints.length(out, AT, threeEmoji, 1, 3);
        assertThat(out).isEmpty();

        Constraints.length(out, AT, threeEmoji + "\uD83D\uDE00", 1, 3);
        assertThat(out).containsExactly(
                new ErrorDetail(AT, "String should have at most 3 characters", "string_too_long"));
    }

    @Test
    void requiredRefusesOnlyAbsentValue() {
        assertThat(Constraints.required(out, AT, "")).isTrue();
        assertThat(Constraints.required(out, AT, 0)).isTrue();
        assertThat(out).isEmpty();

        assertThat(Constraints.required(out, AT, null)).isFalse();
        assertThat(out).containsExactly(new ErrorDetail(AT, "Field required", "missing"));
    }
}
