package io.outpost.notification.messaging;

/** Kafka did not acknowledge a publish in time: answered 503, nothing is known to be stored. */
public class PublishFailedException extends RuntimeException {

    public static final String CODE = "publish_unavailable";

    public PublishFailedException(String description, Throwable cause) {
        super(description, cause, false, false);
    }
}
