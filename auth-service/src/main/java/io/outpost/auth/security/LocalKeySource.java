package io.outpost.auth.security;

import java.security.PublicKey;
import java.util.Optional;

import jakarta.inject.Singleton;

import io.outpost.support.security.KeySource;
import io.smallrye.mutiny.Uni;

/**
 * The shared bearer-token verifier (service-support) takes its keys from this process's own {@link KeyRing}
 * instead of fetching the JWK Set over HTTP: auth-service verifies the admin tokens it issued itself. A key the
 * ring no longer publishes stops verifying at once.
 */
@Singleton
public class LocalKeySource implements KeySource {

    private final KeyRing keys;

    public LocalKeySource(KeyRing keys) {
        this.keys = keys;
    }

    @Override
    public Uni<Optional<PublicKey>> key(String kid) {
        return Uni.createFrom().item(keys.publicKey(kid));
    }

    @Override
    public boolean published(String kid) {
        return keys.publicKey(kid).isPresent();
    }

    @Override
    public boolean publishes(String kid, PublicKey key) {
        return keys.publicKey(kid).map(key::equals).orElse(false);
    }
}
