package io.outpost.model.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Spec §2.5 page_meta. {@code cursor} is present only while more pages exist; {@code page_size} defaults to
 * 10 and {@code total} to 0 when absent (the spec's defaults).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PageMeta(
        String cursor,
        @JsonProperty("page_size") Integer pageSize,
        Long total) {

    public static final int DEFAULT_PAGE_SIZE = 10;
    public static final long DEFAULT_TOTAL = 0;

    public PageMeta {
        pageSize = pageSize == null ? DEFAULT_PAGE_SIZE : pageSize;
        total = total == null ? DEFAULT_TOTAL : total;
    }
}
