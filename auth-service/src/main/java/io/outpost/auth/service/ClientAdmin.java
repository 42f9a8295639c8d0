package io.outpost.auth.service;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

import jakarta.inject.Singleton;
import jakarta.persistence.LockModeType;

import io.outpost.auth.config.AuthConfig;
import io.outpost.auth.messaging.OutboxRelay;
import io.outpost.auth.store.ClientEntity;
import io.outpost.auth.store.ClientRepository;
import io.outpost.auth.store.OutboxRecord;
import io.outpost.auth.store.RevokedTokenEntity;
import io.outpost.auth.store.RevokedTokenRepository;
import io.outpost.support.security.revocation.Revocation;
import io.outpost.support.security.revocation.RevocationList;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * Client administration: create (the secret is answered once, only its hash is kept), list, read, enable/disable,
 * rotate the secret (the old one keeps working for a grace period), set permissions, revoke tokens, end a previous secret. Disabling a
 * client, rotating its secret and revoking its tokens revoke every token it was issued so far — and every token
 * another replica may still issue from the record it holds (the cut-off lies {@code 2 × client-cache-ttl} ahead,
 * docs/auth.md "Revocation"). Single-token revocations are bounded per client (its fair share) and in all; past a
 * bound one is folded into the client-wide cut-off. Each change is
 * marked as an administrator's (bootstrap leaves it alone), audited, and written with its revocation and audit
 * records into the outbox in one transaction; it then applies on this replica at once. Secrets are hashed off the
 * event loop, before the transaction opens. Every query has the store deadline ({@link StoreCalls}).
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

    /** One change to a client row, made inside the transaction; answers what to record about it. */
    @FunctionalInterface
    private interface Edit {
        Recorded apply(ClientEntity row, Instant now);
    }

    /** What a change leaves behind: audit events and revocations. */
    private record Recorded(List<AuditTrail.Event> events, List<Revocation> revocations) {
    }

    private static final char[] ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

    private final ClientRepository repository;
    private final SecretHasher hasher;
    private final ClientDirectory directory;
    private final AuditTrail audit;
    private final OutboxRelay relay;
    private final Clock clock;
    private final StoreCalls store;
    private final Duration tokenLifetime;
    /** How far ahead of its change a client-wide cut-off lies: the oldest record any replica may still act on. */
    private final Duration cutoffMargin;
    private final RevokedTokenRepository revokedTokens;
    private final AuthConfig.Revocations bounds;
    private final SecureRandom random = new SecureRandom();

    public ClientAdmin(ClientRepository repository, RevokedTokenRepository revokedTokens, SecretHasher hasher,
            ClientDirectory directory, AuditTrail audit, OutboxRelay relay, Clock clock, AuthConfig config,
            StoreCalls store) {
        this.repository = repository;
        this.revokedTokens = revokedTokens;
        this.bounds = config.revocations();
        this.cutoffMargin = config.clientCacheTtl().multipliedBy(2);
        this.hasher = hasher;
        this.directory = directory;
        this.audit = audit;
        this.relay = relay;
        this.clock = clock;
        this.store = store;
        this.tokenLifetime = config.tokenLifetime();
    }

    /** Registers a client; {@code id} null picks one; {@code sandboxIds} null binds it to no sandbox. */
    public Uni<WithSecret> create(String actor, String id, List<String> permissions, UUID player,
            List<String> sandboxIds) {
        String clientId = id != null ? id : "client-" + randomId();
        String secret = hasher.newSecret();
        List<AuditTrail.Event> events = new ArrayList<>();
        return offLoop(() -> hasher.hash(secret)).flatMap(hash -> within(Panache.withTransaction(() ->
                repository.findById(clientId).flatMap(existing -> {
                    if (existing != null) {
                        return Uni.createFrom().failure(new ClientExistsException(clientId));
                    }
                    Instant now = clock.instant();
                    ClientEntity entity = new ClientEntity(clientId, hash, permissions.toArray(String[]::new), player,
                            true, now);
                    entity.changeSandboxes(sandboxIds == null ? null : sandboxIds.toArray(String[]::new), now);
                    entity.changedByAdmin(now);
                    events.add(audit.event(actor, "client.created", clientId, "permissions", permissions,
                            "player_uuid", player, "sandbox_ids", sandboxIds));
                    return repository.persist(entity).call(() -> persist(events, List.of()));
                }))))
                .map(entity -> new WithSecret(ClientSnapshot.of(entity), secret))
                .invoke(() -> committed(clientId, events));
    }

    public Uni<List<ClientSnapshot>> list(String after, int limit) {
        return within(Panache.withSession(() -> repository.page(after, limit)))
                .map(rows -> rows.stream().map(ClientSnapshot::of).toList());
    }

    /** The client, or null. */
    public Uni<ClientSnapshot> get(String id) {
        return within(Panache.withSession(() -> repository.findById(id)))
                .map(row -> row == null ? null : ClientSnapshot.of(row));
    }

    /** The changed client, or null when there is none. Disabling revokes every token issued to it so far. */
    public Uni<ClientSnapshot> setEnabled(String actor, String id, boolean enabled) {
        return change(id, (row, now) -> {
            row.changeEnabled(enabled, now);
            if (enabled) {
                return new Recorded(List.of(audit.event(actor, "client.enabled", id)), List.of());
            }
            return revokeAll(row, now, actor, "client.disabled", "disabled");
        });
    }

    public Uni<ClientSnapshot> setPermissions(String actor, String id, List<String> permissions) {
        return change(id, (row, now) -> {
            row.changePermissions(permissions.toArray(String[]::new), now);
            return new Recorded(List.of(audit.event(actor, "client.permissions_changed", id, "permissions",
                    permissions)), List.of());
        });
    }

    /**
     * Changes what is given: the permissions unless null, the sandbox binding when {@code sandboxesGiven}
     * ({@code sandboxIds} null: bound to none). A new binding revokes every token issued so far, as disabling does:
     * each carries the binding it was issued with, and one bound to fewer sandboxes must not outlive it. Null when
     * there is no such client.
     */
    public Uni<ClientSnapshot> change(String actor, String id, List<String> permissions, boolean sandboxesGiven,
            List<String> sandboxIds) {
        return change(id, (row, now) -> {
            List<AuditTrail.Event> events = new ArrayList<>();
            List<Revocation> revocations = new ArrayList<>();
            if (permissions != null) {
                row.changePermissions(permissions.toArray(String[]::new), now);
                events.add(audit.event(actor, "client.permissions_changed", id, "permissions", permissions));
            }
            String[] sandboxes = sandboxIds == null ? null : sandboxIds.toArray(String[]::new);
            if (sandboxesGiven && !Arrays.equals(row.sandboxIds(), sandboxes)) {
                row.changeSandboxes(sandboxes, now);
                Recorded revoked = revokeAll(row, now, actor, "client.sandboxes_changed", "sandboxes_changed",
                        "sandbox_ids", sandboxIds);
                events.addAll(revoked.events());
                revocations.addAll(revoked.revocations());
            }
            return new Recorded(events, revocations);
        });
    }

    /**
     * A new secret for the client; the old one keeps working for {@code grace} (zero: it stops at once), and every
     * token issued so far is revoked. Null when there is no such client.
     */
    public Uni<WithSecret> rotateSecret(String actor, String id, Duration grace) {
        String secret = hasher.newSecret();
        // within a grace the new hash takes the old one's salt, so that one KDF run checks both (SecretHasher)
        Uni<String> current = grace.isZero() ? Uni.createFrom().nullItem()
                : within(Panache.withSession(() -> repository.findById(id)))
                        .map(row -> row == null ? null : row.secretHash());
        return current.flatMap(beside -> offLoop(() -> beside == null ? hasher.hash(secret)
                : hasher.hashBeside(secret, beside)))
                .flatMap(hash -> change(id, (row, now) -> {
                    // a rotation in between changed the hash this one was salted beside: no grace to check in one run
                    Duration kept = SecretHasher.sharesSalt(hash, row.secretHash()) ? grace : Duration.ZERO;
                    row.changeSecretHash(hash, now.plus(kept), now);
                    return revokeAll(row, now, actor, "client.secret_rotated", "secret_rotated",
                            "grace_seconds", kept.toSeconds());
                }))
                .map(client -> client == null ? null : new WithSecret(client, secret));
    }

    /**
     * Ends the grace of the previous secret at once (a rotation whose old secret leaked), and revokes every token
     * issued so far: the ones the old secret got during its grace too. Null when there is no such client.
     */
    public Uni<ClientSnapshot> endPreviousSecret(String actor, String id) {
        return change(id, (row, now) -> {
            row.endPreviousSecret(now);
            return revokeAll(row, now, actor, "client.previous_secret_ended", "secret_rotated");
        });
    }

    /** Revokes every token issued to the client so far; null when there is no such client. */
    public Uni<ClientSnapshot> revokeTokens(String actor, String id) {
        return change(id, (row, now) -> revokeAll(row, now, actor, "client.tokens_revoked", "revoked"));
    }

    /**
     * RFC 7009: revokes one token (by {@code jti}, issued at {@code issuedAt}, expiring at {@code expiresAt}) of
     * {@code clientId}. Within the bounds ({@code outpost.auth.revocations.*}) by its id; past either, by moving the
     * client's cut-off past the token's {@code iat}, which revokes it and every token the client was issued up to it.
     * The client's row is locked meanwhile, so that concurrent revocations of one client count one after the other.
     */
    public Uni<Void> revokeToken(String clientId, String jti, Instant issuedAt, Instant expiresAt) {
        List<AuditTrail.Event> events = new ArrayList<>();
        String[] changed = new String[1];
        return within(Panache.withTransaction(() -> repository.findById(clientId, LockModeType.PESSIMISTIC_WRITE)
                .flatMap(row -> {
                    Instant now = clock.instant();
                    // a verifier keeps a revocation until its token's exp plus the clock margin
                    Instant live = now.minusSeconds(RevocationList.MARGIN_SECONDS);
                    return revokedTokens.forgetExpired(live)
                            .chain(() -> revokedTokens.liveOf(clientId, live))
                            .chain(mine -> revokedTokens.live(live)
                                    .chain(all -> repository.count()
                                            .map(clients -> mine < share(clients) && all < bounds.maxTokens())))
                            .chain(byId -> {
                                if (byId || row == null) {
                                    events.add(audit.event(clientId, "token.revoked", clientId, "jti", jti));
                                    return revokedTokens.persist(new RevokedTokenEntity(jti, clientId, expiresAt))
                                            .chain(() -> persist(events, List.of(Revocation.token(jti, clientId,
                                                    expiresAt.getEpochSecond(), "revoked"))));
                                }
                                changed[0] = clientId;
                                Recorded recorded = revokeUpTo(row, Instant.ofEpochSecond(issuedAt.getEpochSecond() + 1),
                                        now, clientId, "token.revoked", "revoked", "jti", jti,
                                        "folded_into_cutoff", true);
                                events.addAll(recorded.events());
                                return persist(recorded.events(), recorded.revocations());
                            });
                })))
                .invoke(() -> committed(changed[0], events));
    }

    /**
     * The single-token revocations one client may have live: {@code max-tokens-per-client}, or its fair share of
     * {@code max-tokens} among every registered client when that is less (at least one). The shares add up to no
     * more than {@code max-tokens} while there are at most that many clients, so no client's revocation is folded
     * because others filled the list; {@code max-tokens} still holds in all, whatever the number of clients.
     */
    private long share(long clients) {
        return Math.max(1, Math.min(bounds.maxTokensPerClient(), bounds.maxTokens() / Math.max(1, clients)));
    }

    /**
     * Revokes every token of the client issued so far, and every token a replica may still issue from a record read
     * before this change: the cut-off lies {@link #cutoffMargin} ahead, rounded up to a whole second (a token's
     * {@code iat} is in seconds). Tokens issued from the new record wait for the cut-off (TokenResource).
     */
    private Recorded revokeAll(ClientEntity row, Instant now, String actor, String action, String reason,
            Object... details) {
        return revokeUpTo(row, Instant.ofEpochSecond(now.plus(cutoffMargin).getEpochSecond() + 1), now, actor, action,
                reason, details);
    }

    /** Tokens of the client issued before {@code cutoff} (or before its later cut-off, if it has one) are revoked. */
    private Recorded revokeUpTo(ClientEntity row, Instant cutoff, Instant now, String actor, String action,
            String reason, Object... details) {
        row.revokeTokensBefore(cutoff, now);
        Instant effective = row.tokensRevokedBefore();
        Revocation revocation = Revocation.client(row.clientId(), effective.getEpochSecond(),
                effective.plus(tokenLifetime).getEpochSecond(), reason);
        Object[] all = new Object[details.length + 2];
        all[0] = "tokens_issued_before";
        all[1] = effective.toString();
        System.arraycopy(details, 0, all, 2, details.length);
        return new Recorded(List.of(audit.event(actor, action, row.clientId(), all)), List.of(revocation));
    }

    private Uni<ClientSnapshot> change(String id, Edit edit) {
        List<AuditTrail.Event> events = new ArrayList<>();
        return within(Panache.withTransaction(() -> repository.findById(id).flatMap(row -> {
            if (row == null) {
                return Uni.createFrom().nullItem();
            }
            Instant now = clock.instant();
            Recorded recorded = edit.apply(row, now);
            row.changedByAdmin(now);
            events.addAll(recorded.events());
            return persist(recorded.events(), recorded.revocations()).replaceWith(row);
        }))).map(row -> row == null ? null : ClientSnapshot.of(row)).invoke(() -> committed(id, events));
    }

    /** Writes the outbox records of a change into the current transaction. */
    private Uni<Void> persist(List<AuditTrail.Event> events, List<Revocation> revocations) {
        List<OutboxRecord> records = new ArrayList<>();
        revocations.forEach(revocation -> records.add(audit.record(revocation)));
        events.forEach(event -> records.add(audit.record(event)));
        return Panache.getSession().flatMap(session -> session.persistAll(records.toArray()));
    }

    /** After the commit: the change applies here at once, is logged, and its records go to Kafka now. */
    private void committed(String clientId, List<AuditTrail.Event> events) {
        if (clientId != null) {
            directory.invalidate(clientId);
        }
        if (!events.isEmpty()) {
            audit.logged(events);
            relay.kick();
        }
    }

    private <T> Uni<T> within(Uni<T> work) {
        return store.bound(work);
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
