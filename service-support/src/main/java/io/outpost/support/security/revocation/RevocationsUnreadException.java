package io.outpost.support.security.revocation;

/**
 * A bearer token was presented before this replica's {@link RevocationFeed} had read the revocation topic since it
 * started: answered 503 {@code revocations_unread} with {@code Retry-After} ({@link RevocationsUnreadMapper}), never
 * accepted unchecked.
 */
public class RevocationsUnreadException extends RuntimeException {

    public RevocationsUnreadException(String reason) {
        super(reason, null, false, false); // an expected condition while starting: no stack trace
    }
}
