package io.outpost.model.api;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/** Spec §2.4: one version of a role or match-making profile list; {@code version} is the record snapshot. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record HistoryTransaction(
        @JsonProperty("account_id") String accountId,
        @JsonProperty("transaction_id") String transactionId,
        @JsonProperty("issued_at") @JsonFormat(shape = JsonFormat.Shape.STRING) Instant issuedAt,
        String operation,
        @JsonProperty("version_id") String versionId,
        @JsonProperty("version_name") String versionName,
        JsonNode version) {
}
