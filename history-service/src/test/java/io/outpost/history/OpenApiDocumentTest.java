package io.outpost.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.outpost.model.Limits;
import io.outpost.testsupport.contract.OpenApiContract;
import io.outpost.testsupport.contract.OpenApiDocument;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
class OpenApiDocumentTest extends OpenApiContract {

    private static final String ROLE = "GET /v1/history/sandbox/{sandbox_id}/role";
    private static final String PROFILE_LIST = "GET /v1/history/sandbox/{sandbox_id}/match-making-profile-list";

    @Test
    void everyLimitAndDefaultOfTheListingsIsDescribed() {
        OpenApiDocument document = publicDocument();
        for (String listing : List.of(ROLE, PROFILE_LIST)) {
            JsonNode pageSize = document.parameter(listing, "page_size").path("schema");
            assertEquals(List.of(Limits.HISTORY_PAGE_SIZE_MIN, Limits.HISTORY_PAGE_SIZE_MAX, Limits.HISTORY_PAGE_SIZE_DEFAULT),
                    List.of(pageSize.path("minimum").asInt(), pageSize.path("maximum").asInt(), pageSize.path("default").asInt()),
                    listing + " page_size");
            JsonNode cursor = document.parameter(listing, "cursor").path("schema");
            assertEquals(List.of(Limits.CURSOR_MIN_LENGTH, Limits.CURSOR_MAX_LENGTH), List.of(
                    cursor.path("minLength").asInt(), cursor.path("maxLength").asInt()), listing + " cursor");
            assertEquals(Limits.CURSOR_START, cursor.path("default").asText(), listing + " cursor default");
            assertEquals("uuid", document.parameter(listing, "sandbox_id").path("schema").path("format").asText());
        }
        JsonNode name = document.parameter(ROLE, "name").path("schema");
        assertEquals(List.of(Limits.NAME_FILTER_MIN_LENGTH, Limits.NAME_FILTER_MAX_LENGTH),
                List.of(name.path("minLength").asInt(), name.path("maxLength").asInt()));
        JsonNode sort = document.parameter(ROLE, "sort_order").path("schema");
        assertEquals("[\"asc\",\"desc\"]", sort.path("enum").toString());
        assertEquals("desc", sort.path("default").asText());
        assertEquals("uuid", document.parameter(ROLE, "role_ids").path("schema").path("items").path("format").asText());
        assertEquals("integer", document.parameter(ROLE, "legacy_role_ids").path("schema").path("items").path("type").asText());
        assertEquals("uuid", document.parameter(PROFILE_LIST, "resource_id").path("schema").path("format").asText());
    }
}
