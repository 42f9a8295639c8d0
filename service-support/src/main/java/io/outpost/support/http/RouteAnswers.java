package io.outpost.support.http;

import jakarta.inject.Singleton;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.model.error.AuthErrorResponse;
import io.outpost.model.error.ErrorResponse;
import io.outpost.model.error.ValidationErrorResponse;
import io.outpost.support.security.AuthRefusedException;
import io.outpost.support.security.BearerChallenge;
import io.outpost.support.security.revocation.RevocationsUnreadException;
import io.outpost.support.security.revocation.RevocationsUnreadMapper;
import io.outpost.support.store.StoreUnavailableException;
import io.outpost.support.store.StoreUnavailableMapper;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;

/**
 * Answers for an endpoint served by a Vert.x route below Quarkus REST (the long poll, docs/notifications.md):
 * the same bodies, status codes and headers as {@link ErrorMappers}, {@link BearerChallenge} and
 * {@link StoreUnavailableMapper} give every other endpoint, written with the application's {@link ObjectMapper}.
 */
@Singleton
public class RouteAnswers {

    /** What Quarkus REST sends with a resource's JSON entity ... */
    public static final String JSON = "application/json;charset=UTF-8";
    /** ... and with an exception mapper's. */
    private static final String ERROR_JSON = "application/json";

    private final ObjectMapper mapper;
    private final MeterRegistry meters;

    public RouteAnswers(ObjectMapper mapper, MeterRegistry meters) {
        this.mapper = mapper;
        this.meters = meters;
    }

    /** {@code body} as JSON with {@code status}; nothing if the client has gone. */
    public void json(HttpServerResponse response, int status, Object body) {
        write(response, status, JSON, body);
    }

    /** Written as UTF-8 bytes straight away: no string in between for Vert.x to encode again. */
    private void write(HttpServerResponse response, int status, String type, Object body) {
        byte[] json;
        try {
            json = mapper.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            failed(response, e);
            return;
        }
        if (response.ended() || response.closed()) {
            return;
        }
        response.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, type).end(Buffer.buffer(json));
    }

    /** DESIGN §5's error body with {@code status}. */
    public void error(HttpServerResponse response, int status, String code, String description) {
        write(response, status, ERROR_JSON, new ErrorResponse(code, description));
    }

    /** {@code status} answered for what it is, as the framework's 404/405 are: its reason phrase as code. */
    public void status(HttpServerResponse response, int status, String reasonPhrase) {
        write(response, status, ERROR_JSON, ErrorMappers.reasonError(reasonPhrase));
    }

    /**
     * The answer to a failure, as the exception mappers give it: 422 for bad input, 403 with its challenge for a
     * refused token, 503 with {@code Retry-After} while the store is unreachable, else a 500 that says nothing
     * (the failure is logged).
     */
    public void failed(HttpServerResponse response, Throwable failure) {
        if (failure instanceof InvalidInputException invalid) {
            write(response, 422, ERROR_JSON, ValidationErrorResponse.of(invalid.details()));
        } else if (failure instanceof AuthRefusedException refused) {
            AuthErrorResponse body = AuthErrorResponse.of(refused.code(), refused.getMessage());
            if (!response.ended() && !response.closed()) {
                response.putHeader("WWW-Authenticate", BearerChallenge.challenge(meters, body));
            }
            write(response, 403, ERROR_JSON, body);
        } else if (failure instanceof StoreUnavailableException unavailable) {
            ErrorResponse body = StoreUnavailableMapper.refused(unavailable);
            if (!response.ended() && !response.closed()) {
                response.putHeader(HttpHeaders.RETRY_AFTER, StoreUnavailableMapper.RETRY_AFTER);
            }
            write(response, 503, ERROR_JSON, body);
        } else if (failure instanceof RevocationsUnreadException unread) {
            ErrorResponse body = RevocationsUnreadMapper.refused(unread);
            if (!response.ended() && !response.closed()) {
                response.putHeader(HttpHeaders.RETRY_AFTER, RevocationsUnreadMapper.RETRY_AFTER);
            }
            write(response, 503, ERROR_JSON, body);
        } else {
            write(response, 500, ERROR_JSON, ErrorMappers.internalError(failure));
        }
    }
}
