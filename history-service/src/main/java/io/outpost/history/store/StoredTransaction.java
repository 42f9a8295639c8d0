package io.outpost.history.store;

import io.outpost.model.api.HistoryTransaction;

/** A transaction as listed, with its position in the store's append order (the keyset of paging). */
public record StoredTransaction(long position, HistoryTransaction transaction) {
}
