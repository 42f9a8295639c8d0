package io.outpost.history;

import static io.outpost.history.HistoryFixture.PROFILE_LIST;
import static io.outpost.history.HistoryFixture.ROLE;
import static io.outpost.history.HistoryFixture.awaitTotal;
import static io.outpost.history.HistoryFixture.event;
import static io.outpost.history.HistoryFixture.ids;
import static io.outpost.history.HistoryFixture.page;
import static io.outpost.history.HistoryFixture.publish;
import static io.outpost.history.HistoryFixture.walk;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.test.junit.QuarkusTest;

/** Spec §4.4: only match-making profile lists, newest first, filtered by resource_id, paged by cursor. */
@QuarkusTest
class ProfileListHistoryTest {

    @Test
    void listsOnlyProfileListsOfTheSandboxNewestFirst() {
        UUID sandbox = UUID.randomUUID();
        UUID ranked = UUID.randomUUID();
        UUID casual = UUID.randomUUID();
        List<ObjectNode> lists = new ArrayList<>();
        List<ObjectNode> all = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            ObjectNode list = event(sandbox, PROFILE_LIST, i % 3 == 0 ? ranked : casual, "list " + i);
            lists.add(list);
            all.add(list);
            if (i % 10 == 0) {
                all.add(event(sandbox, ROLE, ranked, "a role with the same id"));
                all.add(event(UUID.randomUUID(), PROFILE_LIST, ranked, "another sandbox"));
            }
        }
        publish(all);
        awaitTotal(sandbox, PROFILE_LIST, 120);
        awaitTotal(sandbox, ROLE, 12);

        List<String> newestFirst = new ArrayList<>(ids(lists));
        Collections.reverse(newestFirst);
        var first = page(sandbox, PROFILE_LIST, Map.of());
        assertThat(first.getList("transactions.transaction_id", String.class)).containsExactlyElementsOf(newestFirst.subList(0, 50));
        assertThat(first.getLong("page_meta.total")).isEqualTo(120);
        assertThat(first.getInt("page_meta.page_size")).isEqualTo(50);
        assertThat(walk(sandbox, PROFILE_LIST, Map.of(), 7)).containsExactlyElementsOf(newestFirst);
        // spec §4.4 has no sort_order: it is ignored like any unknown parameter
        assertThat(walk(sandbox, PROFILE_LIST, Map.of("sort_order", "asc"), 50)).containsExactlyElementsOf(newestFirst);

        List<String> rankedOnly = newestFirst.stream()
                .filter(id -> lists.stream().anyMatch(l -> l.get("transaction_id").asText().equals(id)
                        && l.get("resource_id").asText().equals(ranked.toString())))
                .toList();
        assertThat(rankedOnly).hasSize(40);
        var filtered = page(sandbox, PROFILE_LIST, Map.of("resource_id", ranked.toString(), "page_size", "15"));
        assertThat(filtered.getLong("page_meta.total")).isEqualTo(40);
        assertThat(filtered.getList("transactions.transaction_id", String.class)).containsExactlyElementsOf(rankedOnly.subList(0, 15));
        assertThat(walk(sandbox, PROFILE_LIST, Map.of("resource_id", ranked.toString()), 15)).containsExactlyElementsOf(rankedOnly);
        assertThat(walk(sandbox, PROFILE_LIST, Map.of("resource_id", ranked.toString()), 1)).containsExactlyElementsOf(rankedOnly);
        assertThat(page(sandbox, PROFILE_LIST, Map.of("resource_id", UUID.randomUUID().toString()))
                .getList("transactions")).isEmpty();
    }

    @Test
    void aCursorOfOneResourceFilterIsRefusedForAnother() {
        UUID sandbox = UUID.randomUUID();
        UUID list = UUID.randomUUID();
        List<ObjectNode> events = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            events.add(event(sandbox, PROFILE_LIST, list, "l"));
        }
        HistoryFixture.publishAndAwait(events, 3);
        String cursor = page(sandbox, PROFILE_LIST, Map.of("resource_id", list.toString(), "page_size", "1"))
                .getString("page_meta.cursor");
        HistoryFixture.viewer().queryParams(Map.of("cursor", cursor)).when().get(HistoryFixture.path(sandbox, PROFILE_LIST))
                .then().statusCode(422).body(org.hamcrest.Matchers.equalTo(PagingTest.FOREIGN_CURSOR));
        assertThat(page(sandbox, PROFILE_LIST, Map.of("resource_id", list.toString(), "cursor", cursor))
                .getList("transactions")).hasSize(2);
    }
}
