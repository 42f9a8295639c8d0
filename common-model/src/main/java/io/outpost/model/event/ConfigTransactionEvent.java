package io.outpost.model.event;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;

/**
 * One change of a sandbox's configuration as published on {@code sandbox-config-transactions} (key: the
 * sandbox id), DESIGN §6. Stored once per {@code transaction_id}; {@code version} is the full snapshot of the
 * record after the change.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ConfigTransactionEvent(
        @JsonProperty("transaction_id") String transactionId,
        @JsonProperty("sandbox_id") String sandboxId,
        @JsonProperty("resource_type") String resourceType,
        @JsonProperty("resource_id") String resourceId,
        @JsonProperty("legacy_id") Long legacyId,
        @JsonProperty("account_id") String accountId,
        @JsonProperty("issued_at") @JsonFormat(shape = JsonFormat.Shape.STRING)
        @JsonDeserialize(using = IsoInstantDeserializer.class) Instant issuedAt,
        String operation,
        @JsonProperty("version_id") String versionId,
        @JsonProperty("version_name") String versionName,
        JsonNode version) {

    public static final String ROLE = "role";
    public static final String MATCH_MAKING_PROFILE_LIST = "match-making-profile-list";
    public static final List<String> RESOURCE_TYPES = List.of(ROLE, MATCH_MAKING_PROFILE_LIST);
    public static final List<String> OPERATIONS = List.of("create", "update", "delete");
    /** Bound on the free-form identifiers and names a producer sends. */
    public static final int MAX_TEXT = 256;

    /**
     * Every violation of DESIGN §5 and §6, located under {@code at}, in a new list the caller may add to; empty when
     * valid.
     */
    public List<ErrorDetail> validate(List<Object> at) {
        List<ErrorDetail> errors = new ArrayList<>();
        text(errors, ErrorDetail.loc(at, "transaction_id"), transactionId);
        List<Object> sandbox = ErrorDetail.loc(at, "sandbox_id");
        if (present(errors, sandbox, sandboxId)) {
            Constraints.uuid(errors, sandbox, sandboxId);
        }
        List<Object> type = ErrorDetail.loc(at, "resource_type");
        if (present(errors, type, resourceType)) {
            Constraints.oneOf(errors, type, resourceType, RESOURCE_TYPES);
        }
        List<Object> resource = ErrorDetail.loc(at, "resource_id");
        if (present(errors, resource, resourceId)) {
            Constraints.uuid(errors, resource, resourceId);
        }
        text(errors, ErrorDetail.loc(at, "account_id"), accountId);
        List<Object> issued = ErrorDetail.loc(at, "issued_at");
        if (Constraints.required(errors, issued, issuedAt)) {
            Constraints.instant(errors, issued, issuedAt);
        }
        List<Object> op = ErrorDetail.loc(at, "operation");
        if (present(errors, op, operation)) {
            Constraints.oneOf(errors, op, operation, OPERATIONS);
        }
        text(errors, ErrorDetail.loc(at, "version_id"), versionId);
        Constraints.text(errors, ErrorDetail.loc(at, "version_name"), versionName, 1, MAX_TEXT);
        // the snapshot is what the history shows; a JSON null is as absent as a missing field
        List<Object> snapshot = ErrorDetail.loc(at, "version");
        if (Constraints.required(errors, snapshot, version == null || version.isNull() ? null : version)) {
            Constraints.json(errors, snapshot, version);
        }
        return errors;
    }

    /** Required, storable and of 1..{@value #MAX_TEXT} characters. */
    private static void text(List<ErrorDetail> errors, List<Object> loc, String value) {
        if (Constraints.required(errors, loc, value)) {
            Constraints.text(errors, loc, value, 1, MAX_TEXT);
        }
    }

    /** Required and storable: what is left to check is the value's form. */
    private static boolean present(List<ErrorDetail> errors, List<Object> loc, String value) {
        return Constraints.required(errors, loc, value) && Constraints.text(errors, loc, value);
    }
}
