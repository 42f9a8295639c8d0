package io.outpost.history;

import static io.outpost.history.HistoryFixture.ROLE;
import static io.outpost.history.HistoryFixture.page;
import static io.outpost.history.HistoryFixture.path;
import static io.outpost.history.HistoryFixture.publishAndAwait;
import static io.outpost.history.HistoryFixture.role;
import static io.outpost.history.HistoryFixture.viewer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * A cursor is opaque: it does not carry the store's global row id in clear (which tells how many transactions
 * every sandbox has stored, and how fast), and it is still tamper-proof.
 */
@QuarkusTest
class CursorOpacityTest {

    @Inject
    Pool pool;

    private long rowId(String transactionId) {
        return pool.preparedQuery("SELECT id FROM history.config_transaction WHERE transaction_id = $1")
                .execute(Tuple.of(transactionId)).await().atMost(Duration.ofSeconds(5)).iterator().next().getLong(0);
    }

    @Test
    void aCursorHoldsNoRowIdAndAnAlteredOneIsRefused() {
        UUID sandbox = UUID.randomUUID();
        List<com.fasterxml.jackson.databind.node.ObjectNode> events = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            events.add(role(sandbox, UUID.randomUUID(), "opaque " + i));
        }
        publishAndAwait(events, 4);

        String cursor = "0";
        List<String> cursors = new ArrayList<>();
        for (int shown = 0; shown < 3; shown++) {
            JsonPath page = page(sandbox, ROLE, Map.of("page_size", "1", "cursor", cursor));
            cursor = page.getString("page_meta.cursor");
            byte[] raw = Base64.getUrlDecoder().decode(cursor);
            long id = rowId(page.getString("transactions[0].transaction_id"));

            assertThat(indexOf(raw, ByteBuffer.allocate(Long.BYTES).putLong(id).array())).isEqualTo(-1);
            assertThat(indexOf(raw, ByteBuffer.allocate(Long.BYTES).putLong(Long.reverseBytes(id)).array())).isEqualTo(-1);
            cursors.add(cursor);
        }
        // consecutive positions share nothing visible: no common leading bytes as a counter in clear has
        assertThat(cursors.get(0).substring(0, 8)).isNotEqualTo(cursors.get(1).substring(0, 8));
        assertThat(cursors).doesNotHaveDuplicates();

        // tamper-proof still: each byte of the nonce, the encrypted position and the tag is checked
        byte[] raw = Base64.getUrlDecoder().decode(cursors.get(0));
        for (int at : new int[] { 0, 11, 12, 19, 20, raw.length - 1 }) {
            byte[] altered = raw.clone();
            altered[at] ^= 1;
            viewer().queryParams(Map.of("cursor", Base64.getUrlEncoder().withoutPadding().encodeToString(altered)))
                    .when().get(path(sandbox, ROLE)).then().statusCode(422).body(equalTo(PagingTest.FOREIGN_CURSOR));
        }
        // and the cursor continues its listing
        assertThat(page(sandbox, ROLE, Map.of("page_size", "5", "cursor", cursors.get(0)))
                .getList("transactions")).hasSize(3);
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
