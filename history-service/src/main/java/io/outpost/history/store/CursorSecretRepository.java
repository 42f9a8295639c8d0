package io.outpost.history.store;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.smallrye.mutiny.Uni;

/** Reads the cursor-signing key; read once per process, so through Hibernate Reactive like any cold path. */
@ApplicationScoped
public class CursorSecretRepository implements PanacheRepositoryBase<CursorSecretEntity, Short> {

    public Uni<byte[]> secret() {
        return Panache.withSession(() -> findById(CursorSecretEntity.ID))
                .map(found -> {
                    if (found == null) {
                        throw new IllegalStateException("history.cursor_secret is empty: was migration V2 applied?");
                    }
                    return found.secret();
                });
    }
}
