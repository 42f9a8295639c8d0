package io.outpost.auth.service;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.outpost.auth.config.AuthConfig;
import io.outpost.auth.store.ClientEntity;
import io.outpost.auth.store.ClientRepository;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.VertxContextSupport;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;

/**
 * Registers the clients of {@code outpost.auth.bootstrap-clients} at start-up (local runs, tests): creates what is
 * missing, and brings a client it created back in line with the configuration (secret, permissions, player,
 * sandboxes, enabled) — unless an administrator has changed that client since, whose change is never undone. Idempotent: an
 * unchanged configuration changes no row.
 */
@Singleton
public class BootstrapClients {

    private static final Logger LOG = Logger.getLogger(BootstrapClients.class);
    private static final Duration RETRY = Duration.ofSeconds(5);

    private final AuthConfig config;
    private final ClientRepository repository;
    private final SecretHasher hasher;
    private final ClientValidation validation;
    private final ClientDirectory directory;

    public BootstrapClients(AuthConfig config, ClientRepository repository, SecretHasher hasher,
            ClientValidation validation, ClientDirectory directory) {
        this.directory = directory;
        this.config = config;
        this.repository = repository;
        this.hasher = hasher;
        this.validation = validation;
    }

    /**
     * Applies the configuration; also called by tests, to show that a second start changes nothing. An invalid
     * bootstrap client stops the start; an unreachable database does not (readiness reports it): the clients are
     * then applied in the background once PostgreSQL answers.
     */
    public void onStart(@Observes StartupEvent event) {
        Map<String, AuthConfig.BootstrapClient> wanted = config.bootstrapClients();
        wanted.forEach((id, client) -> validation.checkBootstrap(id, client.secret(),
                client.permissions().orElse(List.of()), client.sandboxIds().orElse(null)));
        if (wanted.isEmpty()) {
            return;
        }
        try {
            apply(wanted);
        } catch (Throwable e) {
            LOG.warnf("bootstrap clients not applied yet (%s); retrying every %d s", e.toString(), RETRY.toSeconds());
            retryLater(wanted);
        }
    }

    private void retryLater(Map<String, AuthConfig.BootstrapClient> wanted) {
        ScheduledExecutorService retry = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "outpost-bootstrap-clients");
            thread.setDaemon(true);
            return thread;
        });
        retry.scheduleWithFixedDelay(() -> {
            try {
                apply(wanted);
                LOG.info("bootstrap clients applied");
                retry.shutdown();
            } catch (Throwable e) {
                LOG.debugf("bootstrap clients still not applied: %s", e.toString());
            }
        }, RETRY.toSeconds(), RETRY.toSeconds(), TimeUnit.SECONDS);
    }

    private void apply(Map<String, AuthConfig.BootstrapClient> wanted) throws Throwable {
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
            UUID player = client.playerUuid().orElse(null);
            String[] sandboxes = client.sandboxIds().map(BootstrapClients::canonical).orElse(null);
            ClientEntity row = existing.get(id);
            if (row != null && row.adminChangedAt() != null) {
                existing.remove(id); // an administrator's client now
                continue;
            }
            if (row == null) {
                String hash = hasher.hash(client.secret());
                changes.add(() -> LOG.infof("bootstrap client %s registered", id));
                ClientEntity created = new ClientEntity(id, hash, permissions, player, client.enabled(), now);
                created.changeSandboxes(sandboxes, now);
                existing.put(id, created);
                continue;
            }
            boolean secretChanged = !hasher.verify(client.secret(), row.secretHash());
            String hash = secretChanged ? hasher.hash(client.secret()) : null;
            boolean otherChanged = !Arrays.equals(row.permissions(), permissions)
                    || !Objects.equals(row.playerUuid(), player) || row.enabled() != client.enabled()
                    || !Arrays.equals(row.sandboxIds(), sandboxes);
            if (secretChanged || otherChanged) {
                changes.add(() -> LOG.infof("bootstrap client %s brought in line with the configuration", id));
                existing.put(id, apply(row, hash, permissions, player, sandboxes, client.enabled(), now));
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
        existing.keySet().forEach(directory::invalidate);
        changes.forEach(Runnable::run);
    }

    private Uni<ClientEntity> save(ClientEntity entity) {
        return repository.getSession().flatMap(session -> session.merge(entity));
    }

    /** Sandbox ids as the registry keeps them (checked at start: canonical uuids, each once). */
    private static String[] canonical(List<String> sandboxIds) {
        return sandboxIds.stream().map(id -> UUID.fromString(id).toString()).toArray(String[]::new);
    }

    private static ClientEntity apply(ClientEntity row, String hash, String[] permissions, UUID player,
            String[] sandboxes, boolean enabled, Instant now) {
        if (hash != null) {
            row.changeSecretHash(hash, null, now);
        }
        row.changePermissions(permissions, now);
        row.changePlayer(player, now);
        row.changeSandboxes(sandboxes, now);
        row.changeEnabled(enabled, now);
        return row;
    }
}
