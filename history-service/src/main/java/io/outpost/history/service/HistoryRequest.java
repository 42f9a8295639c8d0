package io.outpost.history.service;

import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

import io.outpost.history.store.NameFold;

/**
 * A listing as the client asked for it (already validated).
 *
 * @param resourceType {@code role} or {@code match-making-profile-list}
 * @param resourceIds  {@code role_ids} or {@code resource_id}; empty: any
 * @param legacyIds    {@code legacy_role_ids}; empty: any
 * @param name         {@code name}; null: any
 * @param cursor       {@code "0"} or a cursor this listing returned
 */
public record HistoryRequest(UUID sandboxId, String resourceType, List<UUID> resourceIds, List<Long> legacyIds,
        String name, boolean ascending, String cursor, int pageSize) {

    public HistoryRequest {
        resourceIds = List.copyOf(resourceIds);
        legacyIds = List.copyOf(legacyIds);
    }

    /** The name filter folded as stored names are ({@link NameFold}), null when there is none. */
    public String nameContains() {
        return name == null ? null : NameFold.fold(name);
    }

    /**
     * What a cursor is bound to: the same listing reached with the filters in another order or letter case
     * gives the same text; any other sandbox, type, filter or sort order gives another.
     */
    public String listing() {
        return String.join("\n", resourceType, sandboxId.toString(), ascending ? "asc" : "desc",
                resourceIds.stream().map(UUID::toString).sorted().distinct().collect(Collectors.joining(",")),
                legacyIds.stream().sorted().distinct().map(String::valueOf).collect(Collectors.joining(",")),
                name == null ? "" : "~" + nameContains());
    }
}
