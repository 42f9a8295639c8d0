package io.outpost.support.http;

import java.util.List;
import java.util.Locale;

import jakarta.ws.rs.NotAcceptableException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import com.fasterxml.jackson.databind.exc.MismatchedInputException;

import io.outpost.model.error.AuthErrorResponse;
import io.outpost.model.error.ErrorDetail;
import io.outpost.model.error.ErrorResponse;
import io.outpost.model.error.ValidationErrorResponse;
import io.outpost.support.security.AuthRefusedException;

/**
 * The one place where exceptions become answers, in every service. Bad input is a 422 in the DESIGN §5
 * shape; unknown paths and methods, an unsupported Content-Type and an unacceptable Accept keep their 404/405/415/406
 * with an {@link ErrorResponse}; anything unexpected is a
 * 500 whose body says nothing about the failure (it is logged instead).
 */
public class ErrorMappers {

    private static final Logger LOG = Logger.getLogger(ErrorMappers.class);

    @ServerExceptionMapper
    public Response invalidInput(InvalidInputException e) {
        return unprocessable(e.details());
    }

    @ServerExceptionMapper
    public Response authRefused(AuthRefusedException e) {
        return Response.status(Response.Status.FORBIDDEN).type(MediaType.APPLICATION_JSON_TYPE)
                .entity(AuthErrorResponse.of(e.code(), e.getMessage())).build();
    }

    /**
     * No resource has the framework read its body (each takes bytes and reads them with
     * {@link io.outpost.support.json.JsonBinding}, whose faults are {@link InvalidInputException}s), so a Jackson
     * failure that reaches here is the service's own — reading what it stored, writing an answer — and a 500, not the
     * client's 422. Named on its own: Quarkus answers this subtype 400 unless a mapper names it exactly.
     */
    @ServerExceptionMapper
    public Response mismatchedJson(MismatchedInputException e) {
        return unexpected(e);
    }

    @ServerExceptionMapper
    public Response webApplication(WebApplicationException e) {
        if (e instanceof NotFoundException) {
            return error(Response.Status.NOT_FOUND, ErrorResponse.NOT_FOUND, "No such resource");
        }
        if (e instanceof NotAllowedException || e instanceof NotSupportedException
                || e instanceof NotAcceptableException) {
            Response original = e.getResponse();
            return Response.fromResponse(original).type(MediaType.APPLICATION_JSON_TYPE)
                    .entity(reasonError(original.getStatusInfo().getReasonPhrase())).build();
        }
        if (e.getResponse().getStatus() == Response.Status.BAD_REQUEST.getStatusCode()) {
            // the framework's "bad request" is bad input too: never answer 400
            return unprocessable(List.of(ErrorDetail.jsonInvalid(ErrorDetail.loc("body"), "Invalid request")));
        }
        return e.getResponse();
    }

    @ServerExceptionMapper
    public Response unexpected(Throwable e) {
        return Response.status(Response.Status.INTERNAL_SERVER_ERROR).type(MediaType.APPLICATION_JSON_TYPE)
                .entity(internalError(e)).build();
    }

    /** The body of a 500: logs {@code e} and says nothing of it to the client. */
    public static ErrorResponse internalError(Throwable e) {
        LOG.error("unexpected failure while answering a request", e);
        return new ErrorResponse(ErrorResponse.INTERNAL_ERROR, "Internal error");
    }

    /** The body of a status answered for what it is (404/405/406/415 of the framework): its reason phrase as code. */
    public static ErrorResponse reasonError(String reasonPhrase) {
        return new ErrorResponse(reasonPhrase.toLowerCase(Locale.ROOT).replace(' ', '_'), reasonPhrase);
    }

    public static Response unprocessable(List<ErrorDetail> details) {
        return Response.status(422).type(MediaType.APPLICATION_JSON_TYPE)
                .entity(ValidationErrorResponse.of(details)).build();
    }

    public static Response error(Response.Status status, String code, String desc) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(new ErrorResponse(code, desc))
                .build();
    }
}
