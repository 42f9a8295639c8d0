package io.outpost.messaging;

import java.util.List;

import io.outpost.model.Uuids;
import io.outpost.model.error.ErrorDetail;

/**
 * The record key a topic requires: exactly the canonical (lower-case, 8-4-4-4-12) spelling of the entity's
 * uuid. Kafka hashes the key's bytes, so a second spelling of the same uuid (upper case, braces) could put one
 * player's or sandbox's records on two partitions and break their order; such records are refused.
 */
public final class RecordKeys {

    private RecordKeys() {
    }

    /**
     * Adds a fault at {@code ["key"]} unless {@code key} is the canonical form of {@code id}; {@code id} must
     * already be a valid uuid (its own fault is reported by the value's validation otherwise).
     */
    public static void requireCanonical(List<ErrorDetail> faults, String key, String id) {
        if (key == null) {
            faults.add(ErrorDetail.missing(ErrorDetail.loc("key")));
            return;
        }
        // the usual record: nothing to parse or build
        if (key.equals(id) && Uuids.isLowerCanonical(id)) {
            return;
        }
        String canonical;
        try {
            // as lenient as UUID.fromString: an id spelt otherwise is refused by the value's own check, and its
            // key is still compared with what that id means
            canonical = Uuids.fromString(id).toString();
        } catch (IllegalArgumentException | NullPointerException e) {
            return;
        }
        if (!key.equals(canonical)) {
            faults.add(ErrorDetail.literal(ErrorDetail.loc("key"), canonical));
        }
    }
}
