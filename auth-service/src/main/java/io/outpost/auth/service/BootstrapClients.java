package io.outpost.auth.service;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.outpost.auth.config.AuthConfig;
import io.outpost.auth.repository.ClientEntity;
import io.outpost.auth.repository.ClientRepository;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.VertxContextSupport;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * Registers the clients of {@code outpost.auth.bootstrap-clients} at start-up (local runs, tests). Idempotent: an
 * unchanged configuration changes no row; a changed secret, permission list, player or enabled flag is applied.
 */
@Singleton
public class BootstrapClients {

    private static final Logger LOG = Logger.getLogger(BootstrapClients.class);

    private final AuthConfig config;
    private final ClientRepository repository;
    private final SecretHasher hasher;
    private final ClientValidation validation;

    public BootstrapClients(AuthConfig config, ClientRepository repository, SecretHasher hasher,
            ClientValidation validation) {
        this.config = config;
        this.repository = repository;
        this.hasher = hasher;
        this.validation = validation;
    }

    void onStart(@Observes StartupEvent event) throws Throwable {
        Map<String, AuthConfig.BootstrapClient> wanted = config.bootstrapClients();
        if (wanted.isEmpty()) {
            return;
        }
        List<ClientEntity> rows = VertxContextSupport.subscribeAndAwait(
                () -> Panache.withSession(() -> repository.list("clientId in ?1", List.copyOf(wanted.keySet()))));
        Map<String, ClientEntity> existing = new HashMap<>();
        rows.forEach(row -> existing.put(row.clientId(), row));
        // the slow hashing happens here, on the start-up thread, not inside a database transaction
        List<Runnable> changes = new ArrayList<>();
        Instant now = Instant.now();
        for (Map.Entry<String, AuthConfig.BootstrapClient> entry : wanted.entrySet()) {
            String id = entry.getKey();
            AuthConfig.BootstrapClient client = entry.getValue();
            String[] permissions = client.permissions().orElse(List.of()).toArray(String[]::new);
            validation.checkBootstrap(id, client.secret(), List.of(permissions));
            UUID player = client.playerUuid().orElse(null);
            ClientEntity row = existing.get(id);
            if (row == null) {
                String hash = hasher.hash(client.secret());
                changes.add(() -> LOG.infof("bootstrap client %s registered", id));
                existing.put(id, new ClientEntity(id, hash, permissions, player, client.enabled(), now));
                continue;
            }
            boolean secretChanged = !hasher.verify(client.secret(), row.secretHash());
            String hash = secretChanged ? hasher.hash(client.secret()) : null;
            boolean otherChanged = !Arrays.equals(row.permissions(), permissions)
                    || !Objects.equals(row.playerUuid(), player) || row.enabled() != client.enabled();
            if (secretChanged || otherChanged) {
                changes.add(() -> LOG.infof("bootstrap client %s brought in line with the configuration", id));
                existing.put(id, apply(row, hash, permissions, player, client.enabled(), now));
            } else {
                existing.remove(id);
            }
        }
        if (existing.isEmpty()) {
            return;
        }
        // one session serves one operation at a time: the rows are merged one after the other
        VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(() -> Multi.createFrom()
                .iterable(List.copyOf(existing.values())).onItem().transformToUniAndConcatenate(this::save)
                .collect().last()));
        changes.forEach(Runnable::run);
    }

    private Uni<ClientEntity> save(ClientEntity entity) {
        return repository.getSession().flatMap(session -> session.merge(entity));
    }

    private static ClientEntity apply(ClientEntity row, String hash, String[] permissions, UUID player,
            boolean enabled, Instant now) {
        if (hash != null) {
            row.changeSecretHash(hash, now);
        }
        row.changePermissions(permissions, now);
        row.changePlayer(player, now);
        row.changeEnabled(enabled, now);
        return row;
    }
}
