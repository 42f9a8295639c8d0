package io.outpost.support.store;

import java.util.concurrent.atomic.AtomicLong;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import io.outpost.model.error.ErrorResponse;

/**
 * 503 {@code store_unavailable} with {@code Retry-After: 1} while PostgreSQL cannot answer. Logged as one line
 * at most every ten seconds (with how many requests it refused meanwhile), not a stack trace per request.
 */
public class StoreUnavailableMapper {

    private static final Logger LOG = Logger.getLogger(StoreUnavailableMapper.class);
    private static final long LOG_EVERY_NANOS = 10_000_000_000L;
    private static final AtomicLong LAST_LOG = new AtomicLong(System.nanoTime() - LOG_EVERY_NANOS);
    private static final AtomicLong REFUSED = new AtomicLong();

    /** The answer's {@code Retry-After}, in seconds. */
    public static final String RETRY_AFTER = "1";

    @ServerExceptionMapper
    public Response storeUnavailable(StoreUnavailableException e) {
        return Response.status(Response.Status.SERVICE_UNAVAILABLE).type(MediaType.APPLICATION_JSON_TYPE)
                .header("Retry-After", RETRY_AFTER).entity(refused(e)).build();
    }

    /** Reports the refusal (at most every ten seconds) and answers its body: for endpoints below Quarkus REST too. */
    public static ErrorResponse refused(StoreUnavailableException e) {
        long refused = REFUSED.incrementAndGet();
        long now = System.nanoTime();
        long last = LAST_LOG.get();
        if (now - last >= LOG_EVERY_NANOS && LAST_LOG.compareAndSet(last, now)) {
            REFUSED.addAndGet(-refused);
            LOG.warnf("answering 503 store_unavailable (%d requests since the last report): %s", refused, e.getMessage());
        }
        return new ErrorResponse(ErrorResponse.STORE_UNAVAILABLE, "The store is unavailable for a moment; retry shortly");
    }
}
