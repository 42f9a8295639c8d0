package io.outpost.support.security;

import java.security.Key;
import java.util.Optional;

import io.smallrye.mutiny.Uni;

/** Resolves the public key that verifies a token signed under key id {@code kid}. */
public interface KeySource {

    /** The key, or empty when no published key has that id (after whatever refresh the source allows). */
    Uni<Optional<Key>> key(String kid);
}
