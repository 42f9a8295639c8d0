package io.outpost.history.store;

import java.util.List;
import java.util.UUID;

/**
 * One page to read from the store: the listing's transactions after a position.
 *
 * @param after    exclusive keyset position in the requested order (null: from the first)
 * @param limit    rows wanted at most
 * @param maxBytes bytes the rows may take in the response at most, though never fewer than one row
 */
public record ListingQuery(ListingFilter filter, Long after, int limit, long maxBytes) {

    UUID sandboxId() {
        return filter.sandboxId();
    }

    String resourceType() {
        return filter.resourceType();
    }

    List<UUID> resourceIds() {
        return filter.resourceIds();
    }

    List<Long> legacyIds() {
        return filter.legacyIds();
    }

    String nameContains() {
        return filter.nameContains();
    }

    boolean ascending() {
        return filter.ascending();
    }

    boolean filtered() {
        return filter.filtered();
    }
}
