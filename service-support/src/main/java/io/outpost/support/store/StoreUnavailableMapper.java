package io.outpost.support.store;

import java.util.concurrent.TimeUnit;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import io.outpost.model.error.ErrorResponse;

/**
 * 503 {@code store_unavailable} with {@code Retry-After: 1} while PostgreSQL cannot answer. Logged as one line
 * at most every ten seconds (with how many requests it refused meanwhile, a burst's last ones included), not a
 * stack trace per request.
 */
public class StoreUnavailableMapper {

    private static final Logger LOG = Logger.getLogger(StoreUnavailableMapper.class);
    private static final RefusalReport REPORT = new RefusalReport(10, TimeUnit.SECONDS, (refused, cause) -> LOG
            .warnf("answered 503 store_unavailable to %d request(s) since the last report: %s", refused, cause));

    /** The answer's {@code Retry-After}, in seconds. */
    public static final String RETRY_AFTER = "1";

    @ServerExceptionMapper
    public Response storeUnavailable(StoreUnavailableException e) {
        return unavailable(refused(e), RETRY_AFTER);
    }

    /** 503 with {@code Retry-After} and {@code body}: every "retry shortly" answer of the services. */
    public static Response unavailable(ErrorResponse body, String retryAfter) {
        return Response.status(Response.Status.SERVICE_UNAVAILABLE).type(MediaType.APPLICATION_JSON_TYPE)
                .header("Retry-After", retryAfter).entity(body).build();
    }

    /** Reports the refusals not yet reported (the service is stopping). */
    static void flushReport() {
        REPORT.flush();
    }

    /** Reports the refusal (at most every ten seconds) and answers its body: for endpoints below Quarkus REST too. */
    public static ErrorResponse refused(StoreUnavailableException e) {
        REPORT.refused(e.getMessage());
        return new ErrorResponse(ErrorResponse.STORE_UNAVAILABLE, "The store is unavailable for a moment; retry shortly");
    }
}
