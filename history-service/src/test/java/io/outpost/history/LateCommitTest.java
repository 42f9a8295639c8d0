package io.outpost.history;

import static org.assertj.core.api.Assertions.assertThat;
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
        return reader.list(new ListingQuery(sandbox, "role", List.of(), List.of(), null, ascending, after, 100))
                .await().atMost(Duration.ofSeconds(10)).rows();
    }

    private static List<String> names(List<StoredTransaction> rows) {
        return rows.stream().map(r -> r.transaction().versionId()).toList();
    }

    @Test
    void readerNeverSkipsATransactionThatCommitsLate() {
        UUID sandbox = UUID.randomUUID();
        store.append(List.of(event(sandbox, "first"))).await().atMost(Duration.ofSeconds(10));
        List<StoredTransaction> seen = new ArrayList<>(read(sandbox, true, null));

        CompletableFuture<Void> drawn = new CompletableFuture<>();
        CompletableFuture<Void> release = new CompletableFuture<>();
        CompletableFuture<Integer> early = pool.withTransaction(connection -> store.append(connection,
                List.of(event(sandbox, "early"))).invoke(() -> drawn.complete(null))
                .call(() -> Uni.createFrom().completionStage(release))).subscribeAsCompletionStage();
        await().atMost(Duration.ofSeconds(10)).until(drawn::isDone);
        CompletableFuture<Integer> late = store.append(List.of(event(sandbox, "late"))).subscribeAsCompletionStage();
        try {
            // give a store without the per-sandbox lock every chance to commit "late" first
            await().atMost(Duration.ofSeconds(1)).until(late::isDone);
        } catch (ConditionTimeoutException expected) {
            // with the lock, "late" waits for "early"
        }
        boolean lateWaited = !late.isDone();
        List<StoredTransaction> top = read(sandbox, false, null);
        seen.addAll(read(sandbox, true, seen.get(seen.size() - 1).position()));

        release.complete(null);
        assertThat(early.join()).isEqualTo(1);
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

    @Test
    void writersOfOtherSandboxesDoNotWait() {
        UUID sandbox = UUID.randomUUID();
        CompletableFuture<Void> drawn = new CompletableFuture<>();
        CompletableFuture<Void> release = new CompletableFuture<>();
        CompletableFuture<Integer> holding = pool.withTransaction(connection -> store.append(connection,
                List.of(event(sandbox, "held"))).invoke(() -> drawn.complete(null))
                .call(() -> Uni.createFrom().completionStage(release))).subscribeAsCompletionStage();
        await().atMost(Duration.ofSeconds(10)).until(drawn::isDone);
        UUID other = UUID.randomUUID();
        assertThat(store.append(List.of(event(other, "free"))).await().atMost(Duration.ofSeconds(10))).isEqualTo(1);
        release.complete(null);
        assertThat(holding.join()).isEqualTo(1);
        assertThat(names(read(other, true, null))).containsExactly("v-free");
    }
}
