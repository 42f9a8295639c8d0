package io.outpost.auth.service;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;

import jakarta.inject.Singleton;

import io.outpost.auth.repository.ClientEntity;
import io.outpost.auth.repository.ClientRepository;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * Client administration: create (the secret is answered once, only its hash is kept), list, read, enable/disable,
 * rotate the secret, set permissions. Every change drops the client from this replica's cache at once. Secrets
 * are hashed off the event loop, before the transaction opens.
 */
@Singleton
public class ClientAdmin {

    /** A client and, right after creation or rotation, its new clear-text secret. */
    public record WithSecret(ClientSnapshot client, String secret) {
    }

    /** The id asked for is taken. */
    public static class ClientExistsException extends RuntimeException {
        public ClientExistsException(String id) {
            super("client " + id + " exists", null, false, false);
        }
    }

    private static final char[] ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

    private final ClientRepository repository;
    private final SecretHasher hasher;
    private final ClientDirectory directory;
    private final SecureRandom random = new SecureRandom();

    public ClientAdmin(ClientRepository repository, SecretHasher hasher, ClientDirectory directory) {
        this.repository = repository;
        this.hasher = hasher;
        this.directory = directory;
    }

    /** Registers a client; {@code id} null picks one. */
    public Uni<WithSecret> create(String id, List<String> permissions, UUID player) {
        String clientId = id != null ? id : "client-" + randomId();
        String secret = hasher.newSecret();
        return offLoop(() -> hasher.hash(secret)).flatMap(hash -> Panache.withTransaction(() ->
                repository.findById(clientId).flatMap(existing -> {
                    if (existing != null) {
                        return Uni.createFrom().failure(new ClientExistsException(clientId));
                    }
                    ClientEntity entity = new ClientEntity(clientId, hash, permissions.toArray(String[]::new), player,
                            true, Instant.now());
                    return repository.persist(entity);
                })))
                .map(entity -> new WithSecret(ClientSnapshot.of(entity), secret))
                .invoke(() -> directory.invalidate(clientId));
    }

    public Uni<List<ClientSnapshot>> list(String after, int limit) {
        return Panache.withSession(() -> repository.page(after, limit))
                .map(rows -> rows.stream().map(ClientSnapshot::of).toList());
    }

    /** The client, or null. */
    public Uni<ClientSnapshot> get(String id) {
        return Panache.withSession(() -> repository.findById(id)).map(row -> row == null ? null : ClientSnapshot.of(row));
    }

    /** The changed client, or null when there is none. */
    public Uni<ClientSnapshot> setEnabled(String id, boolean enabled) {
        return change(id, row -> row.changeEnabled(enabled, Instant.now()));
    }

    public Uni<ClientSnapshot> setPermissions(String id, List<String> permissions) {
        return change(id, row -> row.changePermissions(permissions.toArray(String[]::new), Instant.now()));
    }

    /** A new secret for the client (the old one stops working at once here, within the cache TTL elsewhere); null when there is none. */
    public Uni<WithSecret> rotateSecret(String id) {
        String secret = hasher.newSecret();
        return offLoop(() -> hasher.hash(secret))
                .flatMap(hash -> change(id, row -> row.changeSecretHash(hash, Instant.now())))
                .map(client -> client == null ? null : new WithSecret(client, secret));
    }

    private Uni<ClientSnapshot> change(String id, Consumer<ClientEntity> edit) {
        return Panache.withTransaction(() -> repository.findById(id).map(row -> {
            if (row == null) {
                return null;
            }
            edit.accept(row);
            return row;
        })).map(row -> row == null ? null : ClientSnapshot.of(row)).invoke(() -> directory.invalidate(id));
    }

    private String randomId() {
        char[] id = new char[16];
        for (int i = 0; i < id.length; i++) {
            id[i] = ID_CHARS[random.nextInt(ID_CHARS.length)];
        }
        return new String(id);
    }

    /** Runs slow work on a worker thread and comes back to the caller's Vert.x context (Hibernate Reactive needs it). */
    private static <T> Uni<T> offLoop(Supplier<T> work) {
        Context context = Vertx.currentContext();
        Uni<T> uni = Uni.createFrom().item(work).runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
        return context == null ? uni : uni.emitOn(task -> context.runOnContext(ignored -> task.run()));
    }
}
