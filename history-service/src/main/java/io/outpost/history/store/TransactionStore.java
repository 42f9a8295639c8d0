package io.outpost.history.store;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.model.Uuids;
import io.outpost.model.event.ConfigTransactionEvent;
import io.outpost.support.store.StoreFault;
import io.outpost.support.store.Transactions;
import io.smallrye.mutiny.CompositeException;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Appends to the store of config transactions ({@code history.config_transaction}), with the totals kept
 * beside it. A hot path, so plain SQL through the reactive client rather than entities.
 */
@ApplicationScoped
public class TransactionStore {

    /** Seed of the advisory-lock keys of sandbox writers (keeps them apart from other users of the lock space). */
    private static final int LOCK_SEED = 0x4849_5354; // "HIST"
    /** Slots every sandbox hashes to; a batch locks at most this many slots. */
    static final int LOCK_SLOTS = 32;
    /** A batch of at most this many sandboxes locks each of them (and their slots, shared); a larger one its slots. */
    static final int LOCKED_ONE_BY_ONE = 16;

    /**
     * The writer locks of a batch, held until its transaction ends: slots shared ($1) then sandboxes ($3), or
     * slots alone but exclusive ($2); each kind in ascending order, so that no two writers wait on each other.
     * Writers of one sandbox always conflict: on the sandbox, or on its slot (exclusive against shared or
     * exclusive). Writers of different sandboxes wait only when one of them is a large batch sharing a slot.
     */
    private static final String LOCK = """
            SELECT count(*) AS taken FROM (
                SELECT pg_advisory_xact_lock_shared(%1$d, s) FROM (SELECT unnest($1::int[]) AS s ORDER BY 1) AS shared
                UNION ALL
                SELECT pg_advisory_xact_lock(%1$d, s) FROM (SELECT unnest($2::int[]) AS s ORDER BY 1) AS exclusive
                UNION ALL
                SELECT pg_advisory_xact_lock(hashtextextended(s, %1$d))
                FROM (SELECT unnest($3::text[]) AS s ORDER BY 1) AS sandboxes
            ) AS locks
            """.formatted(LOCK_SEED);

    private static final String APPEND = """
            WITH input AS (
                SELECT * FROM unnest($1::text[], $2::uuid[], $3::text[], $4::uuid[], $5::int8[], $6::text[],
                                     $7::timestamptz[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::int4[])
                    WITH ORDINALITY AS i(transaction_id, sandbox_id, resource_type, resource_id, legacy_id, account_id,
                         issued_at, operation, version_id, version_name, version, name_folded, version_bytes, ord)
            ), inserted AS (
                INSERT INTO history.config_transaction (sandbox_id, resource_type, resource_id, legacy_id,
                        transaction_id, account_id, issued_at, operation, version_id, version_name, version,
                        name_folded, version_bytes)
                SELECT sandbox_id, resource_type, resource_id, legacy_id, transaction_id,
                       account_id, issued_at, operation, version_id, version_name, version::jsonb, name_folded,
                       version_bytes
                -- grouped by sandbox (each in its order): consecutive index entries share B-tree leaf pages
                FROM input ORDER BY sandbox_id, resource_type, ord
                -- a transaction stored before in its sandbox is skipped (its id is left unused) and compared below;
                -- the input holds each (sandbox, id) once
                ON CONFLICT (sandbox_id, transaction_id) DO NOTHING
                RETURNING sandbox_id, transaction_id, resource_type, name_folded
            ), skipped AS MATERIALIZED (
                SELECT * FROM input i
                WHERE NOT EXISTS (SELECT 1 FROM inserted n
                                  WHERE n.sandbox_id = i.sandbox_id AND n.transaction_id = i.transaction_id)
            ), conflicts AS (
                -- the stored row as the statement's snapshot sees it: stored before, not by this statement
                SELECT history.refuse_conflicting_id(s.sandbox_id, s.transaction_id) AS refused
                FROM skipped s JOIN history.config_transaction o
                    ON o.sandbox_id = s.sandbox_id AND o.transaction_id = s.transaction_id
                WHERE (o.resource_type, o.resource_id, o.legacy_id, o.account_id, o.issued_at, o.operation,
                       o.version_id, o.version_name, o.version)
                      IS DISTINCT FROM (s.resource_type, s.resource_id, s.legacy_id, s.account_id, s.issued_at,
                                        s.operation, s.version_id, s.version_name, s.version::jsonb)
            ), names AS (
                INSERT INTO history.name_total AS n (sandbox_id, resource_type, name_folded, total)
                SELECT sandbox_id, resource_type, name_folded, count(*) FROM inserted WHERE name_folded IS NOT NULL
                GROUP BY sandbox_id, resource_type, name_folded
                -- keyed by the name's digest: a B-tree entry could not hold a long name (V6)
                ON CONFLICT (sandbox_id, resource_type, md5(name_folded)) DO UPDATE SET total = n.total + excluded.total
            ), tallies AS (
                INSERT INTO history.listing_total AS t (sandbox_id, resource_type, total)
                SELECT sandbox_id, resource_type, count(*) FROM inserted GROUP BY sandbox_id, resource_type
                ON CONFLICT (sandbox_id, resource_type) DO UPDATE SET total = t.total + excluded.total
            )
            SELECT (SELECT count(*) FROM inserted) AS appended, (SELECT count(refused) FROM conflicts) AS refused
            """;

    private final Pool pool;
    private final ObjectMapper mapper;

    public TransactionStore(Pool pool, ObjectMapper mapper) {
        this.pool = pool;
        this.mapper = mapper;
    }

    /**
     * Appends the events not stored yet, in their order, in one database transaction; returns how many. A caller
     * that stops waiting (the ingest's deadline on a store call cancels the Uni) cancels the statement running in
     * PostgreSQL, so no backend is left waiting on a sandbox's locks behind the retry ({@link Transactions}).
     * The same as {@link #append(List, int)} with one writer.
     */
    public Uni<Integer> append(List<ConfigTransactionEvent> events) {
        return append(events, 1);
    }

    /**
     * Appends the events not stored yet in up to {@code writers} database transactions at once, each over its
     * own connection: the events are dealt by their sandbox's lock slot ({@code slot % writers}), so every
     * sandbox's events stay in one transaction and in their order, and no two of these transactions ever want
     * the same advisory lock (slots of different residues; sandboxes of different slots) — they never wait on
     * each other. Completes when all have ended; fails when any failed, with a failure that is not about the
     * data if there is one (so the batch is retried rather than split). Appends that committed stay: appending
     * them again skips them.
     *
     * <p>A {@code transaction_id} is unique within its sandbox: the same id in another sandbox is another
     * transaction. An id repeated in its sandbox is the same transaction sent again when its content is the same
     * (stored once), and refused for its data when it is not ({@link #firstOfEachTransaction}; against a stored
     * row, the statement's {@code refuse_conflicting_id}, migration V10), so the ingest dead-letters it.
     */
    public Uni<Integer> append(List<ConfigTransactionEvent> events, int writers) {
        List<ConfigTransactionEvent> firsts;
        try {
            firsts = firstOfEachTransaction(events);
        } catch (IllegalArgumentException conflict) {
            return Uni.createFrom().failure(conflict);
        }
        if (firsts.isEmpty()) {
            return Uni.createFrom().item(0);
        }
        // one writer deals everything to itself: the batch is neither de-duplicated nor parsed a second time
        int ways = firsts.size() < 2 ? 1 : Math.max(1, writers);
        List<List<ConfigTransactionEvent>> dealt = new ArrayList<>(ways);
        List<List<UUID>> dealtSandboxes = new ArrayList<>(ways);
        for (int w = 0; w < ways; w++) {
            dealt.add(new ArrayList<>(firsts.size() / ways + 1));
            dealtSandboxes.add(new ArrayList<>(firsts.size() / ways + 1));
        }
        for (ConfigTransactionEvent event : firsts) {
            // dealt by it, and written as the row's sandbox_id
            UUID sandbox = Uuids.fromString(event.sandboxId());
            int writer = slot(sandbox) % ways;
            dealt.get(writer).add(event);
            dealtSandboxes.get(writer).add(sandbox);
        }
        List<Uni<Integer>> appends = new ArrayList<>(ways);
        for (int w = 0; w < ways; w++) {
            List<ConfigTransactionEvent> part = dealt.get(w);
            List<UUID> sandboxes = dealtSandboxes.get(w);
            if (!part.isEmpty()) {
                appends.add(Transactions.withTransaction(pool, connection -> append(connection, part, sandboxes)));
            }
        }
        if (appends.size() == 1) {
            return appends.get(0);
        }
        return Uni.join().all(appends).andCollectFailures()
                .map(counts -> counts.stream().mapToInt(Integer::intValue).sum())
                .onFailure(CompositeException.class).transform(TransactionStore::gravest);
    }

    /**
     * The events without those whose sandbox and {@code transaction_id} an earlier one of them has, each such
     * repeat being equal to that earlier one; a repeat with other content is refused for its data
     * ({@link IllegalArgumentException}), so that the ingest splits the batch and the repeat, alone, meets the
     * store's comparison with the stored first (and its reason). Equal here is stricter than the store's
     * comparison (the snapshot by its tree, not as jsonb): a repeat it refuses may still be stored as the same.
     */
    static List<ConfigTransactionEvent> firstOfEachTransaction(List<ConfigTransactionEvent> events) {
        Map<Key, ConfigTransactionEvent> seen = new HashMap<>(events.size() * 2);
        List<ConfigTransactionEvent> firsts = new ArrayList<>(events.size());
        for (ConfigTransactionEvent event : events) {
            ConfigTransactionEvent first = seen.putIfAbsent(
                    new Key(Uuids.fromString(event.sandboxId()), event.transactionId()), event);
            if (first == null) {
                firsts.add(event);
            } else if (!first.equals(event)) {
                throw new IllegalArgumentException("transaction_id " + event.transactionId() + " of sandbox "
                        + event.sandboxId() + " is given twice with other content");
            }
        }
        return firsts;
    }

    /** What identifies a transaction: its id within its sandbox. */
    private record Key(UUID sandbox, String transactionId) {
    }

    /** Of the failures of concurrent appends, one not about the data if any, else the first. */
    static Throwable gravest(Throwable failure) {
        List<Throwable> causes = ((CompositeException) failure).getCauses();
        return causes.stream().filter(cause -> StoreFault.of(cause) != StoreFault.DATA).findFirst()
                .orElse(causes.get(0));
    }

    /**
     * Appends within the caller's transaction. The batch's writer locks ({@link #LOCK}) are taken first and held
     * until that transaction ends, so ids are drawn in commit order within each sandbox; a batch takes at most
     * {@value #LOCK_SLOTS} advisory locks, whatever the number of its sandboxes (PostgreSQL's lock table holds
     * 64 per connection by default). Of events sharing a sandbox and {@code transaction_id}, the first is
     * appended; one of them with other content fails the call for its data.
     */
    public Uni<Integer> append(SqlConnection connection, List<ConfigTransactionEvent> batch) {
        // once each: the statement inserts by sandbox, not in the batch's order, so it cannot choose the first
        List<ConfigTransactionEvent> events;
        try {
            events = firstOfEachTransaction(batch);
        } catch (IllegalArgumentException conflict) {
            return Uni.createFrom().failure(conflict);
        }
        List<UUID> sandboxes = new ArrayList<>(events.size());
        for (ConfigTransactionEvent event : events) {
            sandboxes.add(Uuids.fromString(event.sandboxId()));
        }
        return append(connection, events, sandboxes);
    }

    /** {@link #append(SqlConnection, List)} given each event's sandbox id already parsed ({@code sandboxIdsParsed}). */
    private Uni<Integer> append(SqlConnection connection, List<ConfigTransactionEvent> events,
            List<UUID> sandboxIdsParsed) {
        int n = events.size();
        // typed arrays, sent in PostgreSQL's binary form: no uuid, bigint or timestamptz text for either side to
        // write and parse per row (the JSON snapshot stays text: jsonb's binary form is its text)
        String[] transactionIds = new String[n];
        UUID[] sandboxIds = new UUID[n];
        String[] resourceTypes = new String[n];
        UUID[] resourceIds = new UUID[n];
        Long[] legacyIds = new Long[n];
        String[] accountIds = new String[n];
        OffsetDateTime[] issuedAts = new OffsetDateTime[n];
        String[] operations = new String[n];
        String[] versionIds = new String[n];
        String[] versionNames = new String[n];
        String[] versions = new String[n];
        String[] namesFolded = new String[n];
        Integer[] versionBytes = new Integer[n];
        Set<UUID> sandboxes = new TreeSet<>();
        for (int i = 0; i < n; i++) {
            ConfigTransactionEvent e = events.get(i);
            UUID sandbox = sandboxIdsParsed.get(i);
            sandboxes.add(sandbox);
            transactionIds[i] = e.transactionId();
            sandboxIds[i] = sandbox;
            resourceTypes[i] = e.resourceType();
            resourceIds[i] = Uuids.fromString(e.resourceId());
            legacyIds[i] = e.legacyId();
            accountIds[i] = e.accountId();
            // PostgreSQL keeps microseconds: cut the rest here (the binary form carries whole microseconds)
            issuedAts[i] = e.issuedAt().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
            operations[i] = e.operation();
            versionIds[i] = e.versionId();
            versionNames[i] = e.versionName();
            versions[i] = json(e);
            versionBytes[i] = versionBytes(e);
            // only roles are filtered by name: a profile list's name is neither folded nor indexed
            namesFolded[i] = ConfigTransactionEvent.ROLE.equals(e.resourceType()) ? NameFold.ofVersion(e.version()) : null;
        }
        Tuple rows = Tuple.tuple().addArrayOfString(transactionIds).addArrayOfUUID(sandboxIds)
                .addArrayOfString(resourceTypes).addArrayOfUUID(resourceIds).addArrayOfLong(legacyIds)
                .addArrayOfString(accountIds).addArrayOfOffsetDateTime(issuedAts).addArrayOfString(operations)
                .addArrayOfString(versionIds).addArrayOfString(versionNames).addArrayOfString(versions)
                .addArrayOfString(namesFolded).addArrayOfInteger(versionBytes);
        return connection.preparedQuery(LOCK).execute(locks(sandboxes))
                .chain(() -> connection.preparedQuery(APPEND).execute(rows))
                .map(result -> result.iterator().next().getLong("appended").intValue());
    }

    /** The parameters of {@link #LOCK} for a batch writing {@code sandboxes}. */
    private static Tuple locks(Set<UUID> sandboxes) {
        Integer[] slots = sandboxes.stream().map(TransactionStore::slot).distinct().toArray(Integer[]::new);
        Integer[] none = new Integer[0];
        if (sandboxes.size() > LOCKED_ONE_BY_ONE) {
            return Tuple.of(none, slots, new String[0]);
        }
        return Tuple.of(slots, none, sandboxes.stream().map(UUID::toString).toArray(String[]::new));
    }

    /** The lock slot of a sandbox: the same on every replica and version (UUID's hash is specified). */
    static int slot(UUID sandbox) {
        return Math.floorMod(sandbox.hashCode(), LOCK_SLOTS);
    }

    /**
     * The length of the snapshot's {@code version::text}, which pages add up to stop at their byte bound; the
     * ingest has refused a longer one than {@link JsonbText#MAX_BYTES}. Null past it: the database measures the
     * row by the same rule, as it does a row appended by an earlier release (migration V9).
     */
    private static Integer versionBytes(ConfigTransactionEvent event) {
        long bytes = JsonbText.bytes(event.version());
        return bytes > JsonbText.MAX_BYTES ? null : (int) bytes;
    }

    private String json(ConfigTransactionEvent event) {
        try {
            return mapper.writeValueAsString(event.version());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("unwritable version of " + event.transactionId(), e);
        }
    }
}
