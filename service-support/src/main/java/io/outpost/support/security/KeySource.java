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
     * Called once at start-up, on a thread that may wait: whatever this source would otherwise do slowly on first
     * use, on the thread of the first request that needs a key (an event loop).
     */
    default void prepare() {
    }
}
