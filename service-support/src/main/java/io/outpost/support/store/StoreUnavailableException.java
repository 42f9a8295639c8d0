package io.outpost.support.store;

/**
 * PostgreSQL could not answer in time (refused, lost, hung or overloaded): a request answers 503
 * {@code store_unavailable} ({@link StoreUnavailableMapper}); the ingest retries.
 */
public class StoreUnavailableException extends RuntimeException {

    private final StoreFault fault;

    public StoreUnavailableException(StoreFault fault, String message, Throwable cause) {
        super(message, cause, false, false); // no stack trace: it is an expected condition, logged in one line
        this.fault = fault;
    }

    public StoreFault fault() {
        return fault;
    }
}
