package io.outpost.history.service;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import io.outpost.history.config.HistoryConfig;
import io.outpost.history.store.ListingQuery;
import io.outpost.history.store.StoredTransaction;
import io.outpost.history.store.HistoryReader;
import io.outpost.model.Limits;
import io.outpost.model.api.HistoryPage;
import io.outpost.model.api.PageMeta;
import io.outpost.model.error.ErrorDetail;
import io.outpost.support.http.InvalidInputException;
import io.outpost.support.store.StoreDeadline;
import io.smallrye.mutiny.Uni;

/** Reads history pages: keyset paging over the store's append order, with sealed cursors and totals. */
@ApplicationScoped
public class HistoryService {

    static final ErrorDetail FOREIGN_CURSOR = ErrorDetail.valueError(ErrorDetail.loc("query", "cursor"),
            "cursor should be '0' or a page_meta.cursor of this listing, with the same sandbox, filters and sort_order");

    private final HistoryReader reader;
    private final CursorCodec cursors;
    private final StoreDeadline deadline;
    private final long pageBytes;

    public HistoryService(HistoryReader reader, CursorCodec cursors, StoreDeadline deadline, HistoryConfig config) {
        this.reader = reader;
        this.cursors = cursors;
        this.deadline = deadline;
        this.pageBytes = config.pageBytes();
    }

    /**
     * One page of at most {@code page_size} transactions and {@link HistoryConfig#pageBytes()} bytes of them (at
     * least one transaction); its cursor continues right after the last one shown, whichever bound cut it. 503
     * {@code store_unavailable} when PostgreSQL does not answer within the query deadline.
     */
    public Uni<HistoryPage> list(HistoryRequest request) {
        return deadline.bound(cursors.ready().chain(() -> {
            String listing = request.filter().listing();
            Long after = null;
            if (!Limits.CURSOR_START.equals(request.cursor())) {
                after = cursors.decode(request.cursor(), listing);
                if (after == null) {
                    throw new InvalidInputException(FOREIGN_CURSOR);
                }
            }
            ListingQuery query = new ListingQuery(request.filter(), after, request.pageSize(), pageBytes);
            return reader.list(query).map(found -> page(found, request, listing));
        }));
    }

    private HistoryPage page(HistoryReader.Listing found, HistoryRequest request, String listing) {
        List<StoredTransaction> shown = found.rows();
        String next = found.more() ? cursors.encode(shown.get(shown.size() - 1).position(), listing) : null;
        return new HistoryPage(shown.stream().map(StoredTransaction::transaction).toList(),
                new PageMeta(next, request.pageSize(), found.total()));
    }
}
