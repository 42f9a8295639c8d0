package io.outpost.notification.service;

import java.util.concurrent.atomic.AtomicBoolean;

import io.outpost.model.api.NotificationPage;

/**
 * A poll's answer, given exactly once by construction: the first page or failure goes to the client, after
 * {@code first} has run (the poll lets go of its place, so the client's next poll is counted afresh); every later
 * one — a failure racing a page, a deadline racing a wake-up — is dropped.
 */
final class OnceAnswer {

    private final PollAnswer answer;
    private final Runnable first;
    private final AtomicBoolean given = new AtomicBoolean();

    OnceAnswer(PollAnswer answer, Runnable first) {
        this.answer = answer;
        this.first = first;
    }

    void page(NotificationPage page, String cursorReset) {
        if (take()) {
            answer.page(page, cursorReset);
        }
    }

    void failed(Throwable failure) {
        if (take()) {
            answer.failed(failure);
        }
    }

    private boolean take() {
        if (!given.compareAndSet(false, true)) {
            return false;
        }
        first.run();
        return true;
    }
}
