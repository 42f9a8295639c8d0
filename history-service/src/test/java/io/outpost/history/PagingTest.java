package io.outpost.history;

import static io.outpost.history.HistoryFixture.ROLE;
import static io.outpost.history.HistoryFixture.ids;
import static io.outpost.history.HistoryFixture.page;
import static io.outpost.history.HistoryFixture.publishAndAwait;
import static io.outpost.history.HistoryFixture.role;
import static io.outpost.history.HistoryFixture.walk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.test.junit.QuarkusTest;

/** Keyset paging: every matching transaction exactly once, in order, at any page size, also while more arrive. */
@QuarkusTest
class PagingTest {

    private static final int COUNT = 1_200;
    private static final UUID SANDBOX = UUID.randomUUID();
    private static final List<UUID> ROLE_IDS = new ArrayList<>();
    private static final List<ObjectNode> PUBLISHED = new ArrayList<>();
    static final String FOREIGN_CURSOR = "{\"detail\":[{\"loc\":[\"query\",\"cursor\"],\"msg\":\"Value error, cursor should "
            + "be '0' or a page_meta.cursor of this listing, with the same sandbox, filters and sort_order\","
            + "\"type\":\"value_error\"}]}";

    @BeforeEach
    void publishOnce() {
        synchronized (PUBLISHED) {
            if (!PUBLISHED.isEmpty()) {
                return;
            }
            for (int i = 0; i < 30; i++) {
                ROLE_IDS.add(UUID.randomUUID());
            }
            for (int i = 0; i < COUNT; i++) {
                PUBLISHED.add(role(SANDBOX, ROLE_IDS.get(i % 30), "role " + (i % 30)).put("legacy_id", i % 30));
            }
            publishAndAwait(PUBLISHED, COUNT);
        }
    }

    private static List<String> reversed(List<String> ids) {
        List<String> copy = new ArrayList<>(ids);
        java.util.Collections.reverse(copy);
        return copy;
    }

    @ParameterizedTest
    @ValueSource(ints = { 7, 50, 1000, 10000 })
    void followingCursorsVisitsEveryTransactionOnceInEitherOrder(int pageSize) {
        assertThat(walk(SANDBOX, ROLE, Map.of("sort_order", "asc"), pageSize)).containsExactlyElementsOf(ids(PUBLISHED));
        assertThat(walk(SANDBOX, ROLE, Map.of(), pageSize)).containsExactlyElementsOf(reversed(ids(PUBLISHED)));
    }

    @ParameterizedTest
    @ValueSource(ints = { 3, 40 })
    void filteredPagingVisitsEveryMatchOnce(int pageSize) {
        String roles = ROLE_IDS.get(0) + "," + ROLE_IDS.get(7) + "," + ROLE_IDS.get(29);
        List<String> expected = PUBLISHED.stream()
                .filter(e -> List.of(0, 7, 29).contains(e.get("legacy_id").asInt()))
                .map(e -> e.get("transaction_id").asText()).toList();
        assertThat(expected).hasSize(120);
        assertThat(walk(SANDBOX, ROLE, Map.of("role_ids", roles, "sort_order", "asc"), pageSize))
                .containsExactlyElementsOf(expected);
        assertThat(walk(SANDBOX, ROLE, Map.of("legacy_role_ids", "0,7,29", "name", "ROLE"), pageSize))
                .containsExactlyElementsOf(reversed(expected));
    }

    @Test
    void everyPageReportsTheTotalAndItsPageSize() {
        var first = page(SANDBOX, ROLE, Map.of("page_size", "500"));
        assertThat(first.getLong("page_meta.total")).isEqualTo(COUNT);
        assertThat(first.getInt("page_meta.page_size")).isEqualTo(500);
        var last = page(SANDBOX, ROLE, Map.of("page_size", "500", "cursor", first.getString("page_meta.cursor")));
        var end = page(SANDBOX, ROLE, Map.of("page_size", "500", "cursor", last.getString("page_meta.cursor")));
        assertThat(end.getList("transactions")).hasSize(200);
        assertThat(end.getLong("page_meta.total")).isEqualTo(COUNT);
        assertThat(end.getString("page_meta.cursor")).isNull();
        // a page that ends exactly at the last transaction has no cursor either
        assertThat(page(SANDBOX, ROLE, Map.of("page_size", "1200")).getString("page_meta.cursor")).isNull();
        assertThat(page(SANDBOX, ROLE, Map.of("page_size", "1199")).getString("page_meta.cursor")).isNotNull();
    }

    @Test
    void walkersNeitherSkipNorRepeatWhileTransactionsArrive() {
        UUID sandbox = UUID.randomUUID();
        List<ObjectNode> events = new ArrayList<>();
        for (int i = 0; i < 1_500; i++) {
            events.add(role(sandbox, UUID.randomUUID(), "live " + i));
        }
        publishAndAwait(events.subList(0, 500), 500);
        CompletableFuture<Void> arriving = CompletableFuture.runAsync(() -> {
            for (int from = 500; from < events.size(); from += 50) {
                HistoryFixture.publish(events.subList(from, from + 50));
            }
        });
        List<String> oldestFirst = walk(sandbox, ROLE, Map.of("sort_order", "asc"), 20);
        List<String> newestFirst = walk(sandbox, ROLE, Map.of(), 20);
        arriving.join();
        // ascending: a gap-free prefix of the publish order (new ones join the end while the walk lasts)
        assertThat(oldestFirst.size()).isGreaterThanOrEqualTo(500);
        assertThat(oldestFirst).containsExactlyElementsOf(ids(events).subList(0, oldestFirst.size()));
        // descending: exactly what existed at the first page, newest first
        assertThat(newestFirst.size()).isGreaterThanOrEqualTo(500);
        assertThat(newestFirst).containsExactlyElementsOf(reversed(ids(events).subList(0, newestFirst.size())));
        HistoryFixture.awaitTotal(sandbox, ROLE, 1_500);
        assertThat(walk(sandbox, ROLE, Map.of("sort_order", "asc"), 333)).containsExactlyElementsOf(ids(events));
        // 1,500 distinct names match: the page walks by id; 611 match ("live 1", "live 1x", …): by name
        assertThat(walk(sandbox, ROLE, Map.of("name", "LIVE", "sort_order", "asc"), 400)).containsExactlyElementsOf(ids(events));
        List<String> ones = events.stream().filter(e -> e.get("version").get("name").asText().startsWith("live 1"))
                .map(e -> e.get("transaction_id").asText()).toList();
        assertThat(ones).hasSize(611);
        assertThat(walk(sandbox, ROLE, Map.of("name", "ve 1", "sort_order", "asc"), 100)).containsExactlyElementsOf(ones);
        assertThat(page(sandbox, ROLE, Map.of("name", "ve 1")).getLong("page_meta.total")).isEqualTo(611);
        assertThat(page(sandbox, ROLE, Map.of("name", "live")).getLong("page_meta.total")).isEqualTo(1_500);
    }

    @Test
    void cursorOfAnotherListingOrAlteredIsRefused() {
        Map<String, String> filter = Map.of("role_ids", ROLE_IDS.get(1) + "," + ROLE_IDS.get(2), "name", "Role", "page_size", "5");
        String cursor = page(SANDBOX, ROLE, filter).getString("page_meta.cursor");
        // the same listing with its filters reordered and in another letter case accepts it
        assertThat(page(SANDBOX, ROLE, Map.of("role_ids", ROLE_IDS.get(2) + "," + ROLE_IDS.get(1), "name", "rOLE",
                "cursor", cursor, "page_size", "100")).getList("transactions")).hasSize(75);
        refused(SANDBOX, ROLE, Map.of("role_ids", ROLE_IDS.get(1).toString(), "name", "Role", "cursor", cursor));
        refused(SANDBOX, ROLE, Map.of("role_ids", ROLE_IDS.get(1) + "," + ROLE_IDS.get(2), "name", "Rol", "cursor", cursor));
        refused(SANDBOX, ROLE, Map.of("role_ids", ROLE_IDS.get(1) + "," + ROLE_IDS.get(2), "name", "Role",
                "legacy_role_ids", "1", "cursor", cursor));
        refused(SANDBOX, ROLE, Map.of("role_ids", ROLE_IDS.get(1) + "," + ROLE_IDS.get(2), "name", "Role",
                "sort_order", "asc", "cursor", cursor));
        refused(UUID.randomUUID(), ROLE, Map.of("role_ids", ROLE_IDS.get(1) + "," + ROLE_IDS.get(2), "name", "Role",
                "cursor", cursor));
        String unfiltered = page(SANDBOX, ROLE, Map.of("page_size", "5")).getString("page_meta.cursor");
        refused(SANDBOX, HistoryFixture.PROFILE_LIST, Map.of("cursor", unfiltered));
        char flipped = unfiltered.charAt(3) == 'A' ? 'B' : 'A';
        refused(SANDBOX, ROLE, Map.of("cursor", unfiltered.substring(0, 3) + flipped + unfiltered.substring(4)));
        refused(SANDBOX, ROLE, Map.of("cursor", unfiltered + "A"));
        refused(SANDBOX, ROLE, Map.of("cursor", "1"));
        refused(SANDBOX, ROLE, Map.of("cursor", "not a cursor!"));
    }

    private static void refused(UUID sandbox, String type, Map<String, String> query) {
        HistoryFixture.viewer().queryParams(query).when().get(HistoryFixture.path(sandbox, type))
                .then().statusCode(422).body(equalTo(FOREIGN_CURSOR));
    }
}
