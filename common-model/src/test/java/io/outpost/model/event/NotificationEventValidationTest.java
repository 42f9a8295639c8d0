package io.outpost.model.event;

import static io.outpost.model.error.ErrorDetail.loc;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.outpost.model.RawJsonObject;
import io.outpost.model.error.ErrorDetail;

class NotificationEventValidationTest {

    private static final String PLAYER = "5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f";
    private static final String EMOJI = "\uD83D\uDE00";
    private static final List<Object> ITEM = List.of("body", "notifications", 3);

    private static NotificationEvent event(String player, String message, String svcUrl, String etag, String id) {
        return new NotificationEvent(player, message, svcUrl, null, etag, id, null);
    }

    private static List<ErrorDetail> validate(String message, String svcUrl, String etag, String id) {
        return event(PLAYER, message, svcUrl, etag, id).validate(List.of());
    }

    private static ErrorDetail tooLong(String field, int max) {
        return new ErrorDetail(loc(field), "String should have at most " + max + " characters", "string_too_long");
    }

    private static ErrorDetail tooShort(String field) {
        return new ErrorDetail(loc(field), "String should have at least 1 character", "string_too_short");
    }

    @Test
    void acceptsMinimalEvent() {
        assertThat(validate("hi", null, null, null)).isEmpty();
    }

    @Test
    void refusesMissingPlayerUuid() {
        assertThat(event(null, "hi", null, null, null).validate(List.of()))
                .containsExactly(new ErrorDetail(loc("player_uuid"), "Field required", "missing"));
    }

    @Test
    void refusesNonCanonicalPlayerUuid() {
        assertThat(event("5f0c6d4e8a1b4c2d9e3f0a1b2c3d4e5f", "hi", null, null, null).validate(List.of()))
                .containsExactly(new ErrorDetail(loc("player_uuid"), "Input should be a valid UUID", "uuid_parsing"));
    }

    @Test
    void acceptsUppercasePlayerUuid() {
        assertThat(event(PLAYER.toUpperCase(), "hi", null, null, null).validate(List.of())).isEmpty();
    }

    @Test
    void refusesMissingMessage() {
        assertThat(validate(null, null, null, null))
                .containsExactly(new ErrorDetail(loc("message"), "Field required", "missing"));
    }

    @Test
    void acceptsEmptyMessage() {
        assertThat(validate("", null, null, null)).isEmpty();
    }

    @Test
    void acceptsMessageAtLimit() {
        assertThat(validate("m".repeat(4096), null, null, null)).isEmpty();
    }

    @Test
    void refusesMessageOneCharacterPastLimit() {
        assertThat(validate("m".repeat(4097), null, null, null)).containsExactly(tooLong("message", 4096));
    }

    @Test
    void countsMessageLengthInCodePoints() {
        assertThat(validate(EMOJI.repeat(4096), null, null, null)).isEmpty();
        assertThat(validate(EMOJI.repeat(4097), null, null, null)).containsExactly(tooLong("message", 4096));
    }

    @Test
    void svcUrlMustBeNonEmptyAndAtMost4096() {
        assertThat(validate("hi", "", null, null)).containsExactly(tooShort("svc_url"));
        assertThat(validate("hi", "u".repeat(4096), null, null)).isEmpty();
        assertThat(validate("hi", "u".repeat(4097), null, null)).containsExactly(tooLong("svc_url", 4096));
    }

    @Test
    void etagMustBeNonEmptyWhenPresent() {
        assertThat(validate("hi", null, "", null)).containsExactly(tooShort("etag"));
        assertThat(validate("hi", null, "x", null)).isEmpty();
    }

    @Test
    void notificationIdMustBeNonEmptyAndAtMost128() {
        assertThat(validate("hi", null, null, "")).containsExactly(tooShort("notification_id"));
        assertThat(validate("hi", null, null, "i".repeat(128))).isEmpty();
        assertThat(validate("hi", null, null, "i".repeat(129))).containsExactly(tooLong("notification_id", 128));
    }

    @Test
    void reportsEveryViolationInFieldOrder() {
        List<ErrorDetail> errors = event("nope", null, "", "", "").validate(List.of());

        assertThat(errors).extracting(ErrorDetail::describe).containsExactly(
                "player_uuid: Input should be a valid UUID [uuid_parsing]",
                "message: Field required [missing]",
                "svc_url: String should have at least 1 character [string_too_short]",
                "etag: String should have at least 1 character [string_too_short]",
                "notification_id: String should have at least 1 character [string_too_short]");
    }

    @Test
    void validateContentIgnoresPlayerUuid() {
        assertThat(event(null, "hi", null, null, null).validateContent(ITEM)).isEmpty();
        assertThat(event("nope", "hi", null, null, null).validateContent(ITEM)).isEmpty();
    }

    @Test
    void validateContentLocatesErrorsUnderPrefixWithIndex() {
        List<ErrorDetail> errors = event(null, "m".repeat(4097), "", null, "i".repeat(129)).validateContent(ITEM);

        assertThat(errors).containsExactly(
                new ErrorDetail(List.of("body", "notifications", 3, "message"),
                        "String should have at most 4096 characters", "string_too_long"),
                new ErrorDetail(List.of("body", "notifications", 3, "svc_url"),
                        "String should have at least 1 character", "string_too_short"),
                new ErrorDetail(List.of("body", "notifications", 3, "notification_id"),
                        "String should have at most 128 characters", "string_too_long"));
    }

    @Test
    void validateLocatesPlayerUnderPrefix() {
        assertThat(event(null, null, null, null, null).validate(List.of("value"))).containsExactly(
                new ErrorDetail(List.of("value", "player_uuid"), "Field required", "missing"),
                new ErrorDetail(List.of("value", "message"), "Field required", "missing"));
    }

    private static ErrorDetail mismatch(Object... loc) {
        return new ErrorDetail(List.of(loc), "String should not contain U+0000 or an unpaired surrogate (U+D800..U+DFFF)",
                "string_pattern_mismatch");
    }

    @Test
    void refusesNulInEveryTextField() {
        assertThat(event("\u0000", "a\u0000", "u\u0000", "e\u0000", "i\u0000").validate(List.of("value")))
                .containsExactly(mismatch("value", "player_uuid"), mismatch("value", "message"),
                        mismatch("value", "svc_url"), mismatch("value", "etag"), mismatch("value", "notification_id"));
    }

    @Test
    void refusesAnUnpairedSurrogateLikeNul() {
        assertThat(validate("\uD800", null, null, null)).containsExactly(mismatch("message"));
        assertThat(validate("\uD83D\uDE00", null, null, null)).isEmpty();
    }

    @Test
    void refusesNulInCustomDataKeysAndNestedValues() {
        NotificationEvent keyed = new NotificationEvent(PLAYER, "m", null, new RawJsonObject("{\"a\\u0000\":1}"), null,
                null, null);
        NotificationEvent nested = new NotificationEvent(PLAYER, "m", null,
                new RawJsonObject("{\"a\":[{\"b\":\"\\u0000\"}]}"), null, null, null);

        assertThat(keyed.validateContent(ITEM)).containsExactly(
                mismatch("body", "notifications", 3, "custom_data", "a\uFFFD", "[key]"));
        assertThat(nested.validate(List.of("value"))).containsExactly(
                mismatch("value", "custom_data", "a", 0, "b"));
    }

    @Test
    void acceptsCreatedWithinYearsOneToNineThousandNineHundredNinetyNine() {
        for (String created : List.of("0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z")) {
            assertThat(new NotificationEvent(PLAYER, "m", null, null, null, null, Instant.parse(created))
                    .validate(List.of())).isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "0000-12-31T23:59:59Z", "+10000-01-01T00:00:00Z", "+300000-01-01T00:00:00Z" })
    void refusesCreatedOutsideTheStoresRange(String created) {
        assertThat(new NotificationEvent(PLAYER, "m", null, null, null, null, Instant.parse(created))
                .validate(List.of("value"))).containsExactly(new ErrorDetail(List.of("value", "created"),
                        "Input should be a valid datetime from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z",
                        "datetime_parsing"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "pos-5", "pos-", "pos-abc" })
    void refusesIdsSpelledLikePositionCursors(String id) {
        assertThat(validate("hi", null, null, id)).containsExactly(new ErrorDetail(loc("notification_id"),
                "Value error, notification_id should not start with 'pos-', which is reserved for position cursors",
                "value_error"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "POS-5", "xpos-5", "pos5", "po-5" })
    void acceptsIdsMerelyResemblingThePrefix(String id) {
        assertThat(validate("hi", null, null, id)).isEmpty();
    }
}
