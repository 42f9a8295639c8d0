package io.outpost.support.security.revocation;

import java.util.concurrent.TimeUnit;

import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import io.outpost.model.error.ErrorResponse;
import io.outpost.support.store.RefusalReport;
import io.outpost.support.store.StoreUnavailableMapper;

/**
 * 503 {@code revocations_unread} with {@code Retry-After: 1} while the replica has not read the revocation topic
 * since it started. Logged as one line at most every ten seconds, with how many requests it refused meanwhile.
 */
public class RevocationsUnreadMapper {

    /** The answer's {@code Retry-After}, in seconds. */
    public static final String RETRY_AFTER = "1";
    private static final RefusalReport REPORT = new RefusalReport(10, TimeUnit.SECONDS, (refused, cause) -> Logger
            .getLogger(RevocationsUnreadMapper.class)
            .warnf("answered 503 revocations_unread to %d request(s) since the last report: %s", refused, cause));

    @ServerExceptionMapper
    public Response revocationsUnread(RevocationsUnreadException e) {
        return StoreUnavailableMapper.unavailable(refused(e), RETRY_AFTER);
    }

    /** Reports the refusal (at most every ten seconds) and answers its body: for endpoints below Quarkus REST too. */
    public static ErrorResponse refused(RevocationsUnreadException e) {
        REPORT.refused(e.getMessage());
        return new ErrorResponse(ErrorResponse.REVOCATIONS_UNREAD,
                "This replica has not read the revocations yet; retry shortly");
    }
}
