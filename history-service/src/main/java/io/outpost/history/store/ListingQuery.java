package io.outpost.history.store;

import java.util.List;
import java.util.UUID;

/**
 * One page to read from the store: a sandbox's transactions of one resource type, filtered, after a position.
 *
 * @param resourceIds  match {@code resource_id} (empty: any)
 * @param legacyIds    match {@code legacy_id} (empty: any)
 * @param nameContains substring of the role's name, folded by {@link NameFold} (null: any)
 * @param after        exclusive keyset position in the requested order (null: from the first)
 * @param limit        rows wanted at most
 * @param maxBytes     bytes the rows may take in the response at most, though never fewer than one row
 */
public record ListingQuery(UUID sandboxId, String resourceType, List<UUID> resourceIds, List<Long> legacyIds,
        String nameContains, boolean ascending, Long after, int limit, long maxBytes) {

    public ListingQuery {
        resourceIds = List.copyOf(resourceIds);
        legacyIds = List.copyOf(legacyIds);
    }

    public boolean filtered() {
        return !resourceIds.isEmpty() || !legacyIds.isEmpty() || nameContains != null;
    }
}
