package io.outpost.auth.store;

import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.smallrye.mutiny.Uni;

/** Live single-token revocations, per client and in all. Callers open the transaction. */
@ApplicationScoped
public class RevokedTokenRepository implements PanacheRepositoryBase<RevokedTokenEntity, String> {

    /** Revocations of {@code clientId} whose tokens may still verify at {@code since}. */
    public Uni<Long> liveOf(String clientId, Instant since) {
        return count("clientId = ?1 and expiresAt > ?2", clientId, since);
    }

    /** Revocations of every client whose tokens may still verify at {@code since}. */
    public Uni<Long> live(Instant since) {
        return count("expiresAt > ?1", since);
    }

    /** Forgets revocations whose tokens can no longer verify. */
    public Uni<Long> forgetExpired(Instant before) {
        return delete("expiresAt <= ?1", before);
    }
}
