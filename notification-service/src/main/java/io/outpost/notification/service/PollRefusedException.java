package io.outpost.notification.service;

/** A long poll refused by a limit: 409 for the player's limit, 503 for the instance's (DESIGN §4). */
public class PollRefusedException extends RuntimeException {

    private final int status;
    private final String code;

    PollRefusedException(int status, String code, String description) {
        super(description, null, false, false);
        this.status = status;
        this.code = code;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }
}
