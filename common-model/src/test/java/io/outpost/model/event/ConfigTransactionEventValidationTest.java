package io.outpost.model.event;

import static io.outpost.model.TestJson.MAPPER;
import static io.outpost.model.error.ErrorDetail.loc;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.outpost.model.error.ErrorDetail;

class ConfigTransactionEventValidationTest {

    private static ObjectNode valid() {
        return MAPPER.valueToTree(ConfigTransactionEventJsonTest.ROLE);
    }

    private static List<ErrorDetail> validate(ObjectNode json) {
        try {
            return MAPPER.treeToValue(json, ConfigTransactionEvent.class).validate(List.of());
        } catch (JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }

    private static List<ErrorDetail> validateWith(String field, String value) {
        ObjectNode json = valid();
        json.put(field, value);
        return validate(json);
    }

    @Test
    void acceptsValidRoleWithLegacyId() {
        assertThat(ConfigTransactionEventJsonTest.ROLE.validate(List.of())).isEmpty();
    }

    @Test
    void acceptsValidProfileListWithoutLegacyIdOrVersionName() {
        assertThat(ConfigTransactionEventJsonTest.PROFILE_LIST.validate(List.of())).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"transaction_id", "sandbox_id", "resource_type", "resource_id", "account_id",
        "issued_at", "operation", "version_id", "version"})
    void refusesMissingRequiredField(String field) {
        ObjectNode json = valid();
        json.remove(field);

        assertThat(validate(json)).containsExactly(new ErrorDetail(loc(field), "Field required", "missing"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sandbox_id", "resource_id"})
    void refusesNonUuidIds(String field) {
        assertThat(validateWith(field, "1-1-1-1-1"))
                .containsExactly(new ErrorDetail(loc(field), "Input should be a valid UUID", "uuid_parsing"));
    }

    @Test
    void refusesUnknownResourceType() {
        assertThat(validateWith("resource_type", "roles")).containsExactly(new ErrorDetail(loc("resource_type"),
                "Input should be one of 'role', 'match-making-profile-list'", "enum"));
    }

    @Test
    void refusesUnknownOperation() {
        assertThat(validateWith("operation", "upsert")).containsExactly(new ErrorDetail(loc("operation"),
                "Input should be one of 'create', 'update', 'delete'", "enum"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"transaction_id", "account_id", "version_id", "version_name"})
    void refusesEmptyText(String field) {
        assertThat(validateWith(field, "")).containsExactly(
                new ErrorDetail(loc(field), "String should have at least 1 character", "string_too_short"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"transaction_id", "account_id", "version_id", "version_name"})
    void acceptsTextOf256Characters(String field) {
        assertThat(validateWith(field, "t".repeat(256))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"transaction_id", "account_id", "version_id", "version_name"})
    void refusesTextOf257Characters(String field) {
        assertThat(validateWith(field, "t".repeat(257))).containsExactly(
                new ErrorDetail(loc(field), "String should have at most 256 characters", "string_too_long"));
    }

    @Test
    void reportsEveryViolationUnderPrefix() {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("sandbox_id", "nope");
        json.put("resource_type", "ROLE");

        List<ErrorDetail> errors = MAPPER.convertValue(json, ConfigTransactionEvent.class).validate(List.of("value"));

        assertThat(errors).extracting(ErrorDetail::describe).containsExactly(
                "value.transaction_id: Field required [missing]",
                "value.sandbox_id: Input should be a valid UUID [uuid_parsing]",
                "value.resource_type: Input should be one of 'role', 'match-making-profile-list' [enum]",
                "value.resource_id: Field required [missing]",
                "value.account_id: Field required [missing]",
                "value.issued_at: Field required [missing]",
                "value.operation: Field required [missing]",
                "value.version_id: Field required [missing]",
                "value.version: Field required [missing]");
    }

    @Test
    void refusesJsonNullVersionSnapshot() {
        ObjectNode json = valid();
        json.putNull("version");

        assertThat(validate(json)).containsExactly(new ErrorDetail(loc("version"), "Field required", "missing"));
    }

    private static ErrorDetail mismatch(Object... loc) {
        return new ErrorDetail(List.of(loc), "String should not contain U+0000 or an unpaired surrogate (U+D800..U+DFFF)",
                "string_pattern_mismatch");
    }

    @ParameterizedTest
    @ValueSource(strings = {"transaction_id", "sandbox_id", "resource_type", "resource_id", "account_id", "operation",
        "version_id", "version_name"})
    void refusesNulInEveryTextFieldBeforeItsOtherChecks(String field) {
        assertThat(validateWith(field, "x\u0000")).containsExactly(mismatch(field));
        assertThat(validateWith(field, "\uDC00")).containsExactly(mismatch(field));
    }

    @Test
    void refusesNulInVersionKeysAndNestedValues() {
        ObjectNode value = valid();
        value.putObject("version").putArray("perms").addObject().put("scope", "a\u0000b");
        ObjectNode key = valid();
        key.putObject("version").put("na\u0000me", "x");

        assertThat(validate(value)).containsExactly(mismatch("version", "perms", 0, "scope"));
        assertThat(validate(key)).containsExactly(mismatch("version", "na\uFFFDme", "[key]"));
    }

    @Test
    void acceptsIssuedAtAtBothBoundsAndRefusesOnePast() {
        assertThat(validateWith("issued_at", "0001-01-01T00:00:00Z")).isEmpty();
        assertThat(validateWith("issued_at", "9999-12-31T23:59:59Z")).isEmpty();
        ErrorDetail outside = new ErrorDetail(loc("issued_at"),
                "Input should be a valid datetime from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z", "datetime_parsing");
        assertThat(validateWith("issued_at", "0000-12-31T23:59:59Z")).containsExactly(outside);
        assertThat(validateWith("issued_at", "+10000-01-01T00:00:00Z")).containsExactly(outside);
        assertThat(validateWith("issued_at", Instant.parse("+300000-01-01T00:00:00Z").toString())).containsExactly(outside);
    }
}
