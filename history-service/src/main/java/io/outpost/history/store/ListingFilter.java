package io.outpost.history.store;

import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Which transactions a listing shows, and in which order: a sandbox's transactions of one resource type, filtered.
 * The same for the request a client sent ({@code HistoryRequest}) and the page read from the store
 * ({@link ListingQuery}).
 *
 * @param resourceType {@code role} or {@code match-making-profile-list}
 * @param resourceIds  {@code role_ids} or {@code resource_id}, matched against {@code resource_id}; empty: any
 * @param legacyIds    {@code legacy_role_ids}, matched against {@code legacy_id}; empty: any
 * @param nameContains the {@code name} filter folded as stored names are ({@link NameFold}); null: any
 */
public record ListingFilter(UUID sandboxId, String resourceType, List<UUID> resourceIds, List<Long> legacyIds,
        String nameContains, boolean ascending) {

    public ListingFilter {
        resourceIds = List.copyOf(resourceIds);
        legacyIds = List.copyOf(legacyIds);
    }

    /** The filter of {@code name} as the client sent it (null: none), folded here. */
    public static ListingFilter of(UUID sandboxId, String resourceType, List<UUID> resourceIds, List<Long> legacyIds,
            String name, boolean ascending) {
        return new ListingFilter(sandboxId, resourceType, resourceIds, legacyIds,
                name == null ? null : NameFold.fold(name), ascending);
    }

    public boolean filtered() {
        return !resourceIds.isEmpty() || !legacyIds.isEmpty() || nameContains != null;
    }

    /**
     * What a cursor is bound to: the same listing reached with the filters in another order or letter case
     * gives the same text; any other sandbox, type, filter or sort order gives another.
     */
    public String listing() {
        return String.join("\n", resourceType, sandboxId.toString(), ascending ? "asc" : "desc",
                resourceIds.stream().map(UUID::toString).sorted().distinct().collect(Collectors.joining(",")),
                legacyIds.stream().sorted().distinct().map(String::valueOf).collect(Collectors.joining(",")),
                nameContains == null ? "" : "~" + nameContains);
    }
}
