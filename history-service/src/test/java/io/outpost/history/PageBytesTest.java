package io.outpost.history;

import static io.outpost.history.HistoryFixture.ROLE;
import static io.outpost.history.HistoryFixture.ids;
import static io.outpost.history.HistoryFixture.path;
import static io.outpost.history.HistoryFixture.publishAndAwait;
import static io.outpost.history.HistoryFixture.role;
import static io.outpost.history.HistoryFixture.viewer;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;

/**
 * A page is bounded in bytes as well as in count (DESIGN §4a; {@code outpost.history.page-bytes}, 1 MiB): it
 * stops before the transaction that would take it past the bound, always holds one, and its cursor continues
 * right after the last shown — no transaction skipped or repeated, {@code page_size} and {@code total} as asked.
 */
@QuarkusTest
class PageBytesTest {

    private static final int PAGE_BYTES = 1 << 20;
    /** A snapshot of about 300 KB: three fit in a page, four do not. */
    private static final String BLOB = "b".repeat(300_000);

    private record Walked(List<List<String>> pages, List<Integer> bodyBytes) {
        List<String> all() {
            return pages.stream().flatMap(List::stream).toList();
        }

        List<Integer> sizes() {
            return pages.stream().map(List::size).toList();
        }
    }

    /** Follows cursors from "0" at page size 50, checking each page's meta; answers the pages seen. */
    private static Walked walk(UUID sandbox, Map<String, String> query, int total) {
        List<List<String>> pages = new ArrayList<>();
        List<Integer> bytes = new ArrayList<>();
        String cursor = "0";
        while (cursor != null) {
            Map<String, String> params = new HashMap<>(query);
            params.put("cursor", cursor);
            params.put("page_size", "50");
            String body = viewer().queryParams(params).when().get(path(sandbox, ROLE)).then().statusCode(200).extract()
                    .asString();
            JsonPath page = JsonPath.from(body);
            assertThat(page.getInt("page_meta.page_size")).isEqualTo(50);
            assertThat(page.getLong("page_meta.total")).isEqualTo(total);
            pages.add(page.getList("transactions.transaction_id"));
            bytes.add(body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
            cursor = page.getString("page_meta.cursor");
        }
        return new Walked(pages, bytes);
    }

    @Test
    void aPageStopsAtItsByteBoundAndItsCursorContinuesRightAfterIt() {
        UUID sandbox = UUID.randomUUID();
        UUID blobs = UUID.randomUUID();
        List<ObjectNode> events = new ArrayList<>();
        // oldest first: small, 4 large, small, one alone past the bound (1,100 numbers of 1,000 digits), small,
        // large, small
        for (char kind : "sLLLLsHsLs".toCharArray()) {
            ObjectNode event = role(sandbox, kind == 'L' ? blobs : UUID.randomUUID(), "role " + kind);
            if (kind == 'L') {
                ((ObjectNode) event.get("version")).put("blob", BLOB);
            } else if (kind == 'H') {
                ArrayNode numbers = ((ObjectNode) event.get("version")).putArray("n");
                Collections.nCopies(1_100, new BigDecimal("1e999")).forEach(numbers::add);
            }
            events.add(event);
        }
        publishAndAwait(events, events.size());
        List<String> oldestFirst = ids(events);
        List<String> newestFirst = new ArrayList<>(oldestFirst);
        Collections.reverse(newestFirst);

        Walked asc = walk(sandbox, Map.of("sort_order", "asc"), events.size());
        assertThat(asc.all()).containsExactlyElementsOf(oldestFirst);
        assertThat(asc.sizes()).containsExactly(4, 2, 1, 3);
        Walked desc = walk(sandbox, Map.of(), events.size());
        assertThat(desc.all()).containsExactlyElementsOf(newestFirst);
        assertThat(desc.sizes()).containsExactly(3, 1, 4, 2);
        for (Walked walked : List.of(asc, desc)) {
            for (int i = 0; i < walked.pages().size(); i++) {
                if (walked.pages().get(i).size() > 1) {
                    assertThat(walked.bodyBytes().get(i)).isLessThanOrEqualTo(PAGE_BYTES + 200);
                }
            }
        }
        // the same through an id filter (the five large ones and the huge one): 3, 1, the huge one alone, 1
        Walked filtered = walk(sandbox, Map.of("role_ids", blobs + "," + events.get(6).get("resource_id").asText(),
                "sort_order", "asc"), 6);
        assertThat(filtered.all()).containsExactly(oldestFirst.get(1), oldestFirst.get(2), oldestFirst.get(3),
                oldestFirst.get(4), oldestFirst.get(6), oldestFirst.get(8));
        assertThat(filtered.sizes()).containsExactly(3, 1, 1, 1);
    }
}
