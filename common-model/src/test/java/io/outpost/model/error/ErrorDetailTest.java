package io.outpost.model.error;

import static io.outpost.model.error.ErrorDetail.loc;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class ErrorDetailTest {

    private static final List<Object> AT = loc("query", "field");

    @Test
    void typeVocabularyIsExactlyTheFifteenCodesOfDesign() {
        assertThat(List.of(ErrorType.values())).extracting(ErrorType::code).containsExactly(
                "missing", "int_parsing", "greater_than_equal", "less_than_equal", "string_too_short",
                "string_too_long", "uuid_parsing", "enum", "literal_error", "json_invalid", "too_short", "too_long",
                "value_error", "string_pattern_mismatch", "datetime_parsing");
    }

    @Test
    void listLengthMessagesUseSingularForOne() {
        assertThat(ErrorDetail.tooShort(AT, 1))
                .isEqualTo(new ErrorDetail(AT, "List should have at least 1 item", "too_short"));
        assertThat(ErrorDetail.tooLong(AT, 100))
                .isEqualTo(new ErrorDetail(AT, "List should have at most 100 items", "too_long"));
    }

    @Test
    void valueErrorPrefixesTheReasonLikePydantic() {
        assertThat(ErrorDetail.valueError(AT, "not a cursor"))
                .isEqualTo(new ErrorDetail(AT, "Value error, not a cursor", "value_error"));
    }

    @Test
    void stringPatternMismatchNamesTheRefusedCharacters() {
        assertThat(ErrorDetail.stringPatternMismatch(AT)).isEqualTo(new ErrorDetail(AT,
                "String should not contain U+0000 or an unpaired surrogate (U+D800..U+DFFF)", "string_pattern_mismatch"));
    }

    @Test
    void datetimeParsingNamesTheAcceptedRange() {
        assertThat(ErrorDetail.datetimeParsing(AT)).isEqualTo(new ErrorDetail(AT,
                "Input should be a valid datetime from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z", "datetime_parsing"));
    }

    @Test
    void missingSaysFieldRequired() {
        assertThat(ErrorDetail.missing(AT)).isEqualTo(new ErrorDetail(AT, "Field required", "missing"));
    }

    @Test
    void intParsingSaysValidInteger() {
        assertThat(ErrorDetail.intParsing(AT))
                .isEqualTo(new ErrorDetail(AT, "Input should be a valid integer", "int_parsing"));
    }

    @Test
    void boundsNameTheBound() {
        assertThat(ErrorDetail.greaterThanEqual(AT, 1)).isEqualTo(
                new ErrorDetail(AT, "Input should be greater than or equal to 1", "greater_than_equal"));
        assertThat(ErrorDetail.lessThanEqual(AT, 10000)).isEqualTo(
                new ErrorDetail(AT, "Input should be less than or equal to 10000", "less_than_equal"));
    }

    @Test
    void stringLengthMessagesUseSingularForOne() {
        assertThat(ErrorDetail.stringTooShort(AT, 1)).isEqualTo(
                new ErrorDetail(AT, "String should have at least 1 character", "string_too_short"));
        assertThat(ErrorDetail.stringTooShort(AT, 2)).isEqualTo(
                new ErrorDetail(AT, "String should have at least 2 characters", "string_too_short"));
        assertThat(ErrorDetail.stringTooLong(AT, 1)).isEqualTo(
                new ErrorDetail(AT, "String should have at most 1 character", "string_too_long"));
        assertThat(ErrorDetail.stringTooLong(AT, 128)).isEqualTo(
                new ErrorDetail(AT, "String should have at most 128 characters", "string_too_long"));
    }

    @Test
    void uuidParsingSaysValidUuid() {
        assertThat(ErrorDetail.uuidParsing(AT))
                .isEqualTo(new ErrorDetail(AT, "Input should be a valid UUID", "uuid_parsing"));
    }

    @Test
    void enumListsAllowedValuesQuotedInOrder() {
        assertThat(ErrorDetail.enumValue(AT, List.of("asc", "desc")))
                .isEqualTo(new ErrorDetail(AT, "Input should be one of 'asc', 'desc'", "enum"));
    }

    @Test
    void literalNamesExpectedValue() {
        assertThat(ErrorDetail.literal(loc("body", "grant_type"), "client_credentials")).isEqualTo(new ErrorDetail(
                loc("body", "grant_type"), "Input should be 'client_credentials'", "literal_error"));
    }

    @Test
    void jsonInvalidKeepsGivenReason() {
        assertThat(ErrorDetail.jsonInvalid(loc("body"), "Unexpected end of input"))
                .isEqualTo(new ErrorDetail(loc("body"), "Unexpected end of input", "json_invalid"));
    }

    @Test
    void describeJoinsLocWithDotsThenMessageAndType() {
        ErrorDetail detail = ErrorDetail.missing(loc("body", "notifications", 3, "message"));

        assertThat(detail.describe()).isEqualTo("body.notifications.3.message: Field required [missing]");
    }

    @Test
    void locAppendsToBaseWithoutChangingIt() {
        List<Object> base = loc("body", "notifications");

        List<Object> nested = loc(base, 2, "etag");

        assertThat(nested).containsExactly("body", "notifications", 2, "etag");
        assertThat(base).containsExactly("body", "notifications");
    }

    @Test
    void nestedLocReadsAsTheFullListAtAnyDepthAndCannotBeChanged() {
        List<Object> at = loc("body");
        List<Object> expected = new ArrayList<>(List.of("body"));
        for (int i = 0; i < 2_000; i++) {
            at = loc(at, i % 2 == 0 ? i : "k" + i);
            expected.add(i % 2 == 0 ? i : "k" + i);
        }
        List<Object> deep = at;

        assertThat(deep).isEqualTo(expected).hasSameHashCodeAs(expected);
        assertThat(deep.get(1000)).isEqualTo(expected.get(1000));
        assertThat(ErrorDetail.missing(deep).loc()).isEqualTo(expected);
        assertThat(ErrorDetail.missing(loc(loc("value"), "key")).describe())
                .isEqualTo("value.key: Field required [missing]");
        assertThatThrownBy(() -> deep.add("x")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> deep.get(2_001)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void nestedLocKeepsWhatItsBaseWasWhenBuilt() {
        List<Object> base = new ArrayList<>(List.of("body", "notifications"));
        List<Object> nested = loc(base, 2);
        base.add("later");

        assertThat(nested).containsExactly("body", "notifications", 2);
    }

    @Test
    void copiesLocDefensively() {
        List<Object> mutable = new ArrayList<>(List.of("body", "message"));
        ErrorDetail detail = ErrorDetail.missing(mutable);
        mutable.add("extra");

        assertThat(detail.loc()).containsExactly("body", "message");
        assertThatThrownBy(() -> detail.loc().add("x")).isInstanceOf(UnsupportedOperationException.class);
    }
}
