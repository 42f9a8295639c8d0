package io.outpost.history.service;

import io.outpost.history.store.ListingFilter;

/**
 * A listing as the client asked for it (already validated).
 *
 * @param cursor {@code "0"} or a cursor this listing returned
 */
public record HistoryRequest(ListingFilter filter, String cursor, int pageSize) {
}
