package io.outpost.notification.service;

/**
 * What a held poll asks of the registry that holds it — all it may ask: the registry tells polls of what was stored
 * through their own methods, and a poll reaches the registry only through this.
 */
interface PollHost {

    /** The instance is stopping: polls answer at once. */
    boolean closing();

    /** The poll could not reach the store: every held poll is looked at again soon (batched). */
    void recheckSoon();

    /** The poll is over (answered, or its client gone): its place is free. */
    void release(HeldPoll poll);
}
