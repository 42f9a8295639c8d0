package io.outpost.notification.rest;

import jakarta.ws.rs.core.Response;

import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import io.outpost.model.error.ErrorResponse;
import io.outpost.notification.messaging.PublishFailedException;
import io.outpost.notification.service.IdConflictException;
import io.outpost.support.http.ErrorMappers;

/** The refusals of this service beyond the shared ones of {@link ErrorMappers}. */
public class NotificationErrorMappers {

    @ServerExceptionMapper
    public Response idConflict(IdConflictException e) {
        return ErrorMappers.error(Response.Status.CONFLICT, ErrorResponse.NOTIFICATION_ID_CONFLICT, e.getMessage());
    }

    @ServerExceptionMapper
    public Response publishFailed(PublishFailedException e) {
        return ErrorMappers.error(Response.Status.SERVICE_UNAVAILABLE, PublishFailedException.CODE, e.getMessage());
    }
}
