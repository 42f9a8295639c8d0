package io.outpost.notification.service;

import io.outpost.model.api.NotificationPage;

/**
 * Where a long poll's answer goes: exactly one of the two, once, from any thread. The poll has let go of its
 * place in the registry before either is called, so the client's next poll is counted afresh.
 */
public interface PollAnswer {

    /**
     * The poll's page: notifications, or none at the deadline, with the cursor to poll on from;
     * {@code cursorReset} is the {@code offset_reset_strategy} applied when the client's cursor named nothing the
     * player's stream holds, else null.
     */
    void page(NotificationPage page, String cursorReset);

    /** The poll is refused ({@link PollRefusedException}) or failed (the store could not start it). */
    void failed(Throwable failure);
}
