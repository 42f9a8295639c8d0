package io.outpost.auth.rest;

import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import io.outpost.auth.service.StoreUnavailableException;
import io.outpost.model.error.ErrorResponse;

/** PostgreSQL unreachable or past its deadline: 503 {@code store_unavailable}, within seconds, never a hang. */
public class StoreUnavailableMapper {

    static final String STORE_UNAVAILABLE = "store_unavailable";
    private static final Logger LOG = Logger.getLogger(StoreUnavailableMapper.class);

    @ServerExceptionMapper
    public Response storeUnavailable(StoreUnavailableException e) {
        LOG.debugf("answered 503: %s", e.getMessage());
        return Response.status(Response.Status.SERVICE_UNAVAILABLE).type(MediaType.APPLICATION_JSON_TYPE)
                .header(HttpHeaders.RETRY_AFTER, 2)
                .entity(new ErrorResponse(STORE_UNAVAILABLE, "The client registry cannot be reached; retry shortly"))
                .build();
    }
}
