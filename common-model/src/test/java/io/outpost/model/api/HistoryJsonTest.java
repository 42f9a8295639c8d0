package io.outpost.model.api;

import static io.outpost.model.TestJson.assertSerializesTo;
import static io.outpost.model.TestJson.fieldNames;
import static io.outpost.model.TestJson.parse;
import static io.outpost.model.TestJson.read;
import static io.outpost.model.TestJson.roundTrip;
import static io.outpost.model.TestJson.tree;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/** HistoryTransaction (spec §2.4) and HistoryPage (spec §2.5). */
class HistoryJsonTest {

    private static final Instant ISSUED = Instant.parse("2026-01-02T03:04:05Z");
    private static final JsonNode SNAPSHOT = parse("""
            {"name":"Admin","permissions":["a:b"],"priority":3,"enabled":true,"parent":null}""");
    private static final HistoryTransaction FULL =
            new HistoryTransaction("acc-1", "tx-1", ISSUED, "update", "v-2", "Admin v2", SNAPSHOT);

    @Test
    void writesTransactionSpecFieldNames() {
        assertSerializesTo(FULL, """
                {"account_id":"acc-1","transaction_id":"tx-1","issued_at":"2026-01-02T03:04:05Z",
                 "operation":"update","version_id":"v-2","version_name":"Admin v2",
                 "version":{"name":"Admin","permissions":["a:b"],"priority":3,"enabled":true,"parent":null}}""");
    }

    @Test
    void omitsAbsentVersionNameAndVersion() {
        HistoryTransaction bare = new HistoryTransaction("acc-1", "tx-1", ISSUED, "delete", "v-3", null, null);

        assertThat(fieldNames(tree(bare))).containsExactlyInAnyOrder(
                "account_id", "transaction_id", "issued_at", "operation", "version_id");
    }

    @Test
    void readsIssuedAtWithOffsetAsSameInstant() {
        HistoryTransaction tx = read("""
                {"account_id":"a","transaction_id":"t","issued_at":"2026-01-02T05:04:05+02:00",
                 "operation":"create","version_id":"v"}""", HistoryTransaction.class);

        assertThat(tx.issuedAt()).isEqualTo(ISSUED);
        assertThat(tx.versionName()).isNull();
        assertThat(tx.version()).isNull();
    }

    @Test
    void roundTripsTransactionWithSnapshotUnchanged() {
        HistoryTransaction back = roundTrip(FULL);

        assertThat(back).isEqualTo(FULL);
        assertThat(back.version()).isEqualTo(SNAPSHOT);
    }

    @Test
    void writesPageWithTransactionsAndPageMeta() {
        HistoryPage page = new HistoryPage(List.of(FULL), new PageMeta("cur-2", 1, 7L));

        JsonNode json = tree(page);

        assertThat(fieldNames(json)).containsExactlyInAnyOrder("transactions", "page_meta");
        assertThat(json.get("page_meta")).isEqualTo(parse("""
                {"cursor":"cur-2","page_size":1,"total":7}"""));
        assertThat(json.get("transactions")).hasSize(1);
        assertThat(json.get("transactions").get(0).get("transaction_id").asText()).isEqualTo("tx-1");
    }

    @Test
    void roundTripsPage() {
        HistoryTransaction other = new HistoryTransaction("acc-2", "tx-0", ISSUED, "create", "v-1", null, null);
        HistoryPage page = new HistoryPage(List.of(FULL, other), new PageMeta(null, 2, 2L));

        assertThat(roundTrip(page)).isEqualTo(page);
    }

    @Test
    void readsPageMetaDefaultsInsideAPage() {
        HistoryPage page = read("""
                {"transactions":[],"page_meta":{}}""", HistoryPage.class);

        assertThat(page.transactions()).isEmpty();
        assertThat(page.pageMeta()).isEqualTo(new PageMeta(null, 10, 0L));
    }
}
