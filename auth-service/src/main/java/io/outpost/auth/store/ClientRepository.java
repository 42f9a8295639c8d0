package io.outpost.auth.store;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Sort;
import io.smallrye.mutiny.Uni;

/** The client registry in PostgreSQL. Callers open the session or transaction. */
@ApplicationScoped
public class ClientRepository implements PanacheRepositoryBase<ClientEntity, String> {

    /** Up to {@code limit} clients with an id after {@code after} (null: from the first), in id order. */
    public Uni<List<ClientEntity>> page(String after, int limit) {
        if (after == null) {
            return findAll(Sort.by("clientId")).page(0, limit).list();
        }
        return find("clientId > ?1", Sort.by("clientId"), after).page(0, limit).list();
    }
}
