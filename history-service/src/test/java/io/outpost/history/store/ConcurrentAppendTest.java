package io.outpost.history.store;

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

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.outpost.model.event.ConfigTransactionEvent;
import io.outpost.support.store.StoreFault;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.CompositeException;
import io.smallrye.mutiny.Uni;
import io.vertx.core.VertxException;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgException;

/**
 * A batch is stored by two writers at once (the ingest's {@code ingest-writers}), its sandboxes dealt between them
 * by lock slot: every sandbox's transactions land in their order, the two never wait on each other's locks, and a
 * writer refused for the data leaves the other's rows stored once — appending the batch again adds only the rest.
 */
@QuarkusTest
class ConcurrentAppendTest {

    @Inject
    TransactionStore store;

    @Inject
    HistoryReader reader;

    @Inject
    Pool pool;

    private static ConfigTransactionEvent event(UUID sandbox, String transactionId, String name) {
        return new ConfigTransactionEvent(transactionId, sandbox.toString(), "role", UUID.randomUUID().toString(),
                null, "account", Instant.now(), "create", "v-" + name, null,
                JsonNodeFactory.instance.objectNode().put("name", name));
    }

    private static ConfigTransactionEvent event(UUID sandbox, String name) {
        return event(sandbox, name + "-" + UUID.randomUUID(), name);
    }

    /** {@code count} new sandboxes whose lock slot has the given residue modulo 2 (which writer gets them). */
    private static List<UUID> sandboxesOf(int residue, int count) {
        List<UUID> sandboxes = new ArrayList<>();
        while (sandboxes.size() < count) {
            UUID sandbox = UUID.randomUUID();
            if (TransactionStore.slot(sandbox) % 2 == residue) {
                sandboxes.add(sandbox);
            }
        }
        return sandboxes;
    }

    private List<String> names(UUID sandbox) {
        return reader.list(new ListingQuery(new ListingFilter(sandbox, "role", List.of(), List.of(), null, true), null, 100,
                Long.MAX_VALUE))
                .await().atMost(Duration.ofSeconds(10)).rows().stream().map(r -> r.transaction().versionId()).toList();
    }

    @Test
    void everySandboxKeepsItsOrderAndAppendingAgainAddsNothing() {
        List<UUID> sandboxes = new ArrayList<>(sandboxesOf(0, 25));
        sandboxes.addAll(sandboxesOf(1, 25));
        List<ConfigTransactionEvent> batch = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            for (UUID sandbox : sandboxes) {
                batch.add(event(sandbox, "r" + round));
            }
        }

        assertThat(store.append(batch, 2).await().atMost(Duration.ofSeconds(30))).isEqualTo(200);
        assertThat(store.append(batch, 2).await().atMost(Duration.ofSeconds(30))).isZero();
        for (UUID sandbox : sandboxes) {
            assertThat(names(sandbox)).as("sandbox %s", sandbox).containsExactly("v-r0", "v-r1", "v-r2", "v-r3");
        }
    }

    @Test
    void theTwoWritersNeverWaitOnEachOther() {
        // more than LOCKED_ONE_BY_ONE sandboxes each: both writers lock whole slots, exclusively
        List<UUID> evens = sandboxesOf(0, 40);
        List<UUID> odds = sandboxesOf(1, 40);
        CompletableFuture<Void> drawn = new CompletableFuture<>();
        CompletableFuture<Void> release = new CompletableFuture<>();
        CompletableFuture<Integer> held = pool.withTransaction(connection -> store
                .append(connection, evens.stream().map(s -> event(s, "held")).toList())
                .invoke(() -> drawn.complete(null)).call(() -> Uni.createFrom().completionStage(release)))
                .subscribeAsCompletionStage();
        await().atMost(Duration.ofSeconds(10)).until(drawn::isDone);

        // the writer of the other residue commits while the first still holds every even slot
        List<ConfigTransactionEvent> other = odds.stream().map(s -> event(s, "free")).toList();
        assertThat(store.append(other, 2).await().atMost(Duration.ofSeconds(10))).isEqualTo(40);
        // a writer of the same residue does wait: the slots are what keeps a sandbox's writers in commit order
        CompletableFuture<Integer> same = store.append(List.of(event(evens.get(7), "late"),
                event(odds.get(7), "late")), 2).subscribeAsCompletionStage();
        await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> names(odds.get(7))
                .contains("v-late"));
        assertThat(same).isNotDone();

        release.complete(null);
        assertThat(held.join()).isEqualTo(40);
        assertThat(same.join()).isEqualTo(2);
        assertThat(names(evens.get(7))).containsExactly("v-held", "v-late");
        assertThat(names(odds.get(7))).containsExactly("v-free", "v-late");
    }

    @Test
    void aWriterRefusedForItsDataLeavesTheOthersRowsStoredOnce() {
        UUID even = sandboxesOf(0, 1).get(0);
        UUID odd = sandboxesOf(1, 1).get(0);
        ConfigTransactionEvent good = event(odd, "good");
        // PostgreSQL's text refuses U+0000 (the ingest's validation refuses it earlier; the store is the last word)
        ConfigTransactionEvent unstorable = event(even, "nul-\u0000-" + UUID.randomUUID(), "bad");
        ConfigTransactionEvent beside = event(even, "beside");

        assertThatThrownBy(() -> store.append(List.of(good, unstorable, beside), 2).await()
                .atMost(Duration.ofSeconds(30))).satisfies(failure -> assertThat(StoreFault.of(failure))
                        .isEqualTo(StoreFault.DATA));
        assertThat(names(odd)).as("the other writer committed").containsExactly("v-good");
        assertThat(names(even)).as("the refused writer stored none of its rows").isEmpty();

        assertThat(store.append(List.of(good, beside), 2).await().atMost(Duration.ofSeconds(30))).isEqualTo(1);
        assertThat(names(odd)).containsExactly("v-good");
        assertThat(names(even)).containsExactly("v-beside");
    }

    /**
     * 300 pairs of one transaction id, first in a sandbox of one writer, then in a sandbox of the other (20
     * sandboxes, each the first of 15 pairs and the second of 15 others): version "first" then "second".
     */
    private static List<ConfigTransactionEvent> pairsAcrossWriters(List<UUID> evens, List<UUID> odds) {
        List<ConfigTransactionEvent> batch = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            UUID first = (i % 2 == 0 ? evens : odds).get(i / 2 % 10);
            UUID second = (i % 2 == 0 ? odds : evens).get(i / 2 % 10);
            String transactionId = "pair-" + i + "-" + UUID.randomUUID();
            batch.add(event(first, transactionId, "first"));
            batch.add(event(second, transactionId, "second"));
        }
        return batch;
    }

    /** Each sandbox of the pairs holds its own 30: an id of another sandbox hid none of them. */
    private void assertEveryPairStoredInBoth(List<UUID> evens, List<UUID> odds) {
        for (UUID sandbox : evens) {
            assertThat(names(sandbox)).as("sandbox %s", sandbox).hasSize(30).containsOnly("v-first", "v-second");
        }
        for (UUID sandbox : odds) {
            assertThat(names(sandbox)).as("sandbox %s", sandbox).hasSize(30).containsOnly("v-first", "v-second");
        }
    }

    @Test
    void aTransactionIdOfAnotherSandboxIsAnotherTransactionWhicheverWriterStoresIt() {
        List<UUID> evens = sandboxesOf(0, 10);
        List<UUID> odds = sandboxesOf(1, 10);

        assertThat(store.append(pairsAcrossWriters(evens, odds), 2).await().atMost(Duration.ofSeconds(30)))
                .isEqualTo(600);
        assertEveryPairStoredInBoth(evens, odds);
    }

    /** A new sandbox id whose first eight hex digits are {@code prefix}: where it sorts among uuids is known. */
    private static UUID sandboxStartingWith(String prefix) {
        return UUID.fromString(prefix + UUID.randomUUID().toString().substring(8));
    }

    @Test
    void oneAppendStoresATransactionIdInEachOfItsSandboxes() {
        // the append inserts grouped by sandbox: the later event's sandbox comes first in that order
        UUID sortsLast = sandboxStartingWith("ffffffff");
        UUID sortsFirst = sandboxStartingWith("00000000");
        String id = "twice-" + UUID.randomUUID();

        assertThat(store.append(List.of(event(sortsLast, id, "first"), event(sortsFirst, id, "second")))
                .await().atMost(Duration.ofSeconds(30))).isEqualTo(2);
        assertThat(names(sortsLast)).containsExactly("v-first");
        assertThat(names(sortsFirst)).containsExactly("v-second");
    }

    @Test
    void aTransactionGivenTwiceInItsSandboxIsStoredOnceInItsOrder() {
        UUID sandbox = UUID.randomUUID();
        ConfigTransactionEvent first = event(sandbox, "first");

        assertThat(store.append(List.of(first, event(sandbox, "second"), first), 1).await()
                .atMost(Duration.ofSeconds(30))).isEqualTo(2);
        assertThat(store.append(List.of(first), 2).await().atMost(Duration.ofSeconds(30))).isZero();
        assertThat(names(sandbox)).containsExactly("v-first", "v-second");
        assertThat(store.append(List.of(), 1).await().atMost(Duration.ofSeconds(30))).isZero();
    }

    @Test
    void aTransactionIdRepeatedInItsSandboxWithOtherContentIsRefusedForItsData() {
        UUID sandbox = UUID.randomUUID();
        String id = "twice-" + UUID.randomUUID();
        ConfigTransactionEvent first = event(sandbox, id, "first");
        ConfigTransactionEvent other = event(sandbox, id, "other");

        // in one batch: refused before the store is asked, so the ingest splits the batch
        assertThatThrownBy(() -> store.append(List.of(first, other), 2).await().atMost(Duration.ofSeconds(30)))
                .satisfies(failure -> assertThat(StoreFault.of(failure)).isEqualTo(StoreFault.DATA));
        assertThat(names(sandbox)).isEmpty();
        // against the stored one: the store's own refusal, with its reason
        assertThat(store.append(List.of(first), 2).await().atMost(Duration.ofSeconds(30))).isEqualTo(1);
        assertThatThrownBy(() -> store.append(List.of(other), 2).await().atMost(Duration.ofSeconds(30)))
                .satisfies(failure -> assertThat(StoreFault.of(failure)).isEqualTo(StoreFault.DATA))
                .hasMessageContaining("transaction_id_conflict: transaction_id " + id + " of sandbox " + sandbox
                        + " is already stored with other content");
        assertThat(names(sandbox)).containsExactly("v-first");
    }

    /** What the ingest does with a batch refused for its data: halves, in order, until the refused one stands alone. */
    private int appendSplitting(List<ConfigTransactionEvent> part) {
        try {
            return store.append(part, 2).await().atMost(Duration.ofSeconds(30));
        } catch (RuntimeException failure) {
            assertThat(StoreFault.of(failure)).isEqualTo(StoreFault.DATA);
            if (part.size() == 1) {
                return 0;
            }
            int half = part.size() / 2;
            return appendSplitting(part.subList(0, half)) + appendSplitting(part.subList(half, part.size()));
        }
    }

    @Test
    void aBatchRefusedAndSplitStoresEveryPairOnce() {
        List<UUID> evens = sandboxesOf(0, 10);
        List<UUID> odds = sandboxesOf(1, 10);
        List<ConfigTransactionEvent> batch = new ArrayList<>(pairsAcrossWriters(evens, odds));
        // the even writer fails on it and stores nothing; the odd one commits its part of the batch
        batch.add(301, event(evens.get(0), "nul-\u0000-" + UUID.randomUUID(), "bad"));

        // the odd writer's part committed at the first try (and is the same again in the halves): they add the
        // even writer's 300
        assertThat(appendSplitting(batch)).isEqualTo(300);
        assertEveryPairStoredInBoth(evens, odds);
    }

    @Test
    void aFailureThatHealsOutranksARefusalOfTheData() {
        PgException refused = new PgException("invalid byte sequence", "ERROR", "22021", null);
        VertxException closed = new VertxException("Connection is closed", true);
        assertThat(StoreFault.of(TransactionStore.gravest(new CompositeException(refused, closed))))
                .isEqualTo(StoreFault.of(closed)).isNotEqualTo(StoreFault.DATA);
        assertThat(TransactionStore.gravest(new CompositeException(refused, refused))).isSameAs(refused);
        assertThat(TransactionStore.gravest(new CompositeException(closed, refused))).isSameAs(closed);
    }
}
