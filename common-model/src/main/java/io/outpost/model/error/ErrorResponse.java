package io.outpost.model.error;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Body of the other documented refusals (404 of a resource, 409/503 poll limits, 429 throttling, 500):
 * a stable {@code error_code} and a human-readable {@code desc}.
 */
public record ErrorResponse(@JsonProperty("error_code") String errorCode, String desc) {

    /** 409: a player already holds the configured number of concurrent long polls. */
    public static final String TOO_MANY_LISTENING = "too_many_listening_to_single_client";
    /** 409: a published notification_id is already used for the player with other content. */
    public static final String NOTIFICATION_ID_CONFLICT = "notification_id_conflict";
    /** 503: the instance holds its configured maximum of long polls. */
    public static final String CONNECTION_LIMIT_REACHED = "connection_limit_reached";
    /** 503: PostgreSQL did not answer within the query deadline (down, hung or overloaded); retry shortly. */
    public static final String STORE_UNAVAILABLE = "store_unavailable";
    /**
     * 503: the replica has not yet read the revocation topic since it started, so it cannot tell a revoked token
     * from a valid one; retry shortly (another replica may answer).
     */
    public static final String REVOCATIONS_UNREAD = "revocations_unread";
    /** 429: too many failed attempts; see Retry-After. */
    public static final String TOO_MANY_REQUESTS = "too_many_requests";
    public static final String NOT_FOUND = "not_found";
    /** 404: the player has no such notification (the vendor's code). */
    public static final String RESOURCE_NOT_FOUND = "resource_not_found";
    public static final String INTERNAL_ERROR = "internal_error";
}
