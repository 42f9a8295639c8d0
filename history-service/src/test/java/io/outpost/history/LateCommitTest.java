package io.outpost.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import jakarta.inject.Inject;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.outpost.history.store.HistoryReader;
import io.outpost.history.store.ListingFilter;
import io.outpost.history.store.ListingQuery;
import io.outpost.history.store.StoredTransaction;
import io.outpost.history.store.TransactionStore;
import io.outpost.model.event.ConfigTransactionEvent;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;

/**
 * Two writers append to one sandbox and the one that drew the smaller id commits last. A keyset reader must
 * still see both: the store serialises a sandbox's writers, so the later one waits for the earlier commit.
 */
@QuarkusTest
class LateCommitTest {

    @Inject
    TransactionStore store;

    @Inject
    HistoryReader reader;

    @Inject
    Pool pool;

    private static ConfigTransactionEvent event(UUID sandbox, String id) {
        return new ConfigTransactionEvent(id + "-" + UUID.randomUUID(), sandbox.toString(), "role",
                UUID.randomUUID().toString(), null, "account", Instant.now(), "create", "v-" + id, null,
                JsonNodeFactory.instance.objectNode().put("name", id));
    }

    private List<StoredTransaction> read(UUID sandbox, boolean ascending, Long after) {
        return reader.list(new ListingQuery(new ListingFilter(sandbox, "role", List.of(), List.of(), null, ascending), after,
                100, Long.MAX_VALUE))
                .await().atMost(Duration.ofSeconds(10)).rows();
    }

    private static List<String> names(List<StoredTransaction> rows) {
        return rows.stream().map(r -> r.transaction().versionId()).toList();
    }

    /** A writer's transaction that has appended {@code events} and stays open until {@code release} completes. */
    private record Held(CompletableFuture<Integer> appended, CompletableFuture<Void> release) {
        int commit() {
            release.complete(null);
            return appended.join();
        }
    }

    private Held holdOpen(List<ConfigTransactionEvent> events) {
        CompletableFuture<Void> drawn = new CompletableFuture<>();
        CompletableFuture<Void> release = new CompletableFuture<>();
        CompletableFuture<Integer> appended = pool.withTransaction(connection -> store.append(connection, events)
                .invoke(() -> drawn.complete(null)).call(() -> Uni.createFrom().completionStage(release)))
                .subscribeAsCompletionStage();
        await().atMost(Duration.ofSeconds(10)).until(drawn::isDone);
        return new Held(appended, release);
    }

    /** Whether {@code append} is still waiting after a second: all a writer without the lock needs to commit. */
    private static boolean stillWaiting(CompletableFuture<Integer> append) {
        try {
            await().atMost(Duration.ofSeconds(1)).until(append::isDone);
        } catch (ConditionTimeoutException expected) {
            // waiting for the held writer
        }
        return !append.isDone();
    }

    @Test
    void readerNeverSkipsATransactionThatCommitsLate() {
        UUID sandbox = UUID.randomUUID();
        store.append(List.of(event(sandbox, "first"))).await().atMost(Duration.ofSeconds(10));
        List<StoredTransaction> seen = new ArrayList<>(read(sandbox, true, null));

        Held early = holdOpen(List.of(event(sandbox, "early")));
        CompletableFuture<Integer> late = store.append(List.of(event(sandbox, "late"))).subscribeAsCompletionStage();
        boolean lateWaited = stillWaiting(late);
        List<StoredTransaction> top = read(sandbox, false, null);
        seen.addAll(read(sandbox, true, seen.get(seen.size() - 1).position()));

        assertThat(early.commit()).isEqualTo(1);
        assertThat(late.join()).isEqualTo(1);
        seen.addAll(read(sandbox, true, seen.get(seen.size() - 1).position()));
        List<StoredTransaction> belowTop = read(sandbox, false, top.get(top.size() - 1).position());

        assertThat(names(seen)).as("ascending reader").containsExactly("v-first", "v-early", "v-late");
        List<String> descending = new ArrayList<>(names(top));
        descending.addAll(names(belowTop));
        List<String> all = names(read(sandbox, false, null));
        assertThat(all).containsExactly("v-late", "v-early", "v-first");
        // what a descending walk saw is the whole history up to its first page: no hole in the middle
        assertThat(descending).as("descending reader, first page taken while 'early' was open")
                .containsExactlyElementsOf(all.subList(all.size() - descending.size(), all.size()));
        assertThat(lateWaited).as("the second writer of the sandbox waited for the first").isTrue();
    }

    /** Backends waiting for an advisory lock (a writer of the store behind another's locks). */
    private long waitingWriters() {
        return pool.query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted").execute()
                .await().atMost(Duration.ofSeconds(10)).iterator().next().getLong(0);
    }

    /**
     * The ingest gives up on a store call at its deadline and retries it (messaging-support's store timeout): the
     * append it gave up on is cancelled in PostgreSQL, not left waiting for the sandbox's locks beside the retry —
     * before, each retry behind a stalled writer added a waiting backend, holding a pooled connection each.
     */
    @Test
    void anAppendItsCallerGaveUpOnLeavesNoWriterWaiting() {
        UUID sandbox = UUID.randomUUID();
        Held early = holdOpen(List.of(event(sandbox, "early")));
        try {
            Uni<Integer> late = store.append(List.of(event(sandbox, "late"))).ifNoItem().after(Duration.ofMillis(500))
                    .fail();
            assertThatThrownBy(() -> late.await().atMost(Duration.ofSeconds(10)))
                    .isInstanceOf(io.smallrye.mutiny.TimeoutException.class);
            await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> assertThat(waitingWriters()).as("writers still waiting").isZero());
        } finally {
            early.release().complete(null);
        }
        assertThat(early.appended().join()).isEqualTo(1);
        assertThat(names(read(sandbox, true, null))).as("the abandoned append stored nothing").containsExactly("v-early");
    }

    @Test
    void writersOfOtherSandboxesDoNotWait() {
        Held holding = holdOpen(List.of(event(UUID.randomUUID(), "held")));
        UUID other = UUID.randomUUID();
        assertThat(store.append(List.of(event(other, "free"))).await().atMost(Duration.ofSeconds(10))).isEqualTo(1);
        assertThat(holding.commit()).isEqualTo(1);
        assertThat(names(read(other, true, null))).containsExactly("v-free");
    }

    private static List<ConfigTransactionEvent> oneEachIn(List<UUID> sandboxes, String id) {
        return sandboxes.stream().map(sandbox -> event(sandbox, id)).toList();
    }

    private static List<UUID> sandboxes(int count) {
        List<UUID> sandboxes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            sandboxes.add(UUID.randomUUID());
        }
        return sandboxes;
    }

    @Test
    void aBatchSpanningThousandsOfSandboxesTakesNoMoreLocksThanTheDefaultLockTableAllowsPerConnection() {
        List<UUID> sandboxes = sandboxes(3000);
        long locks = pool.withTransaction(connection -> store.append(connection, oneEachIn(sandboxes, "wide"))
                .chain(() -> connection.query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                        + "AND pid = pg_backend_pid()").execute())
                .map(rows -> rows.iterator().next().getLong(0))).await().atMost(Duration.ofSeconds(30));
        // max_locks_per_transaction defaults to 64
        assertThat(locks).isBetween(1L, 64L);
        assertThat(names(read(sandboxes.get(0), true, null))).containsExactly("v-wide");
        assertThat(names(read(sandboxes.get(2999), true, null))).containsExactly("v-wide");
    }

    @Test
    void aWideBatchStillMakesTheNextWriterOfEachOfItsSandboxesWait() {
        List<UUID> sandboxes = sandboxes(200);
        UUID sandbox = sandboxes.get(137);
        Held wide = holdOpen(oneEachIn(sandboxes, "wide"));
        CompletableFuture<Integer> late = store.append(List.of(event(sandbox, "late"))).subscribeAsCompletionStage();
        boolean lateWaited = stillWaiting(late);
        assertThat(wide.commit()).isEqualTo(200);
        assertThat(late.join()).isEqualTo(1);
        assertThat(names(read(sandbox, true, null))).containsExactly("v-wide", "v-late");
        assertThat(lateWaited).as("the next writer of a sandbox of the wide batch waited for its commit").isTrue();
    }
}
