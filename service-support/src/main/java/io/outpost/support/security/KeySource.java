package io.outpost.support.security;

import java.security.PublicKey;
import java.util.Optional;

import io.smallrye.mutiny.Uni;

/** Resolves the public key that verifies a token signed under key id {@code kid}. */
public interface KeySource {

    /** The key, or empty when no published key has that id (after whatever refresh the source allows). */
    Uni<Optional<PublicKey>> key(String kid);

    /**
     * Whether {@code kid} is in the key set as last known, without fetching: a token remembered as verified is
     * refused once its key has left the set.
     */
    boolean published(String kid);

    /**
     * Whether the key set as last known holds {@code key} under {@code kid}, without fetching: a token verified
     * earlier is refused once its key was retired or replaced by another under the same id.
     */
    default boolean publishes(String kid, PublicKey key) {
        return published(kid);
    }

    /** Starts a fetch of the key set when one is due, without waiting for it; for a holder of verified tokens. */
    default void refreshIfDue() {
    }

    /**
     * {@code listener} runs (on any thread) after the key set changed: a key left it, or another took a key's id.
     * Whoever holds verified tokens looks at them again ({@link TokenVerifier#refusalOf}).
     */
    default void onChange(Runnable listener) {
    }

    /**
     * Called once at start-up, on a thread that may wait: whatever this source would otherwise do slowly on first
     * use, on the thread of the first request that needs a key (an event loop).
     */
    default void prepare() {
    }
}
