package io.outpost.model.api;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Spec §2.5: one page of a history listing. */
public record HistoryPage(
        List<HistoryTransaction> transactions,
        @JsonProperty("page_meta") PageMeta pageMeta) {

    public HistoryPage {
        transactions = List.copyOf(transactions);
    }
}
