package io.outpost.history.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The name filter's first statement ({@link HistoryReader#NAMES}) finds one sandbox's matching names without
 * reading the sandbox's whole dictionary: in a sandbox of 5,000 names, beside 2,000 smaller sandboxes, a name
 * matched by one entry costs a handful of pages whichever plan PostgreSQL keeps for the prepared statement
 * (planned for these values, or the generic plan it switches to after five executions).
 */
@QuarkusTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NameLookupCostTest {

    private static final UUID BIG = UUID.randomUUID();
    private static final int BIG_NAMES = 5000;

    @Inject
    Pool pool;

    @BeforeAll
    void fillDictionary() {
        // the dictionary as the append leaves it (one row per folded name), written directly: ingesting 9,000
        // transactions would only make this test slower
        pool.preparedQuery("""
                INSERT INTO history.name_total (sandbox_id, resource_type, name_folded, total)
                SELECT $1, 'role', 'role ' || i || ' ' || (ARRAY['admin', 'moderator', 'viewer', 'ops'])[i % 4 + 1], 90
                FROM generate_series(1, $2) AS i
                """).execute(Tuple.of(BIG, BIG_NAMES)).await().atMost(Duration.ofSeconds(30));
        pool.query("""
                INSERT INTO history.name_total (sandbox_id, resource_type, name_folded, total)
                SELECT s.id, 'role', 'role ' || i || ' admin', 1
                FROM (SELECT gen_random_uuid() AS id FROM generate_series(1, 2000)) AS s, generate_series(1, 20) AS i
                """).execute().await().atMost(Duration.ofSeconds(30));
        pool.query("ANALYZE history.name_total").execute().await().atMost(Duration.ofSeconds(30));
    }

    @ParameterizedTest
    @ValueSource(strings = { "force_custom_plan", "force_generic_plan" })
    void oneMatchingNameOfFiveThousandReadsAFewPages(String planMode) {
        JsonObject plan = explain(planMode, "role 4242 ");

        assertThat(scanOfNameTotal(plan).getLong("Actual Rows")).isEqualTo(1);
        // here: 29 pages (GIN entries, its pending list of at most 8 pages, one heap page); before V8 the
        // sandbox's range of name_total_key alone was 60-110 pages, or PostgreSQL read the whole table
        assertThat(pagesRead(plan)).as("pages read for one of %,d names, plan %s", BIG_NAMES, plan.encodePrettily())
                .isLessThan(40);
    }

    /**
     * The top node of {@code EXPLAIN (ANALYZE, BUFFERS)} of NAMES for the big sandbox, prepared as the service
     * prepares it and planned as given: EXPLAIN of a statement with bound parameters would always plan for them.
     */
    private JsonObject explain(String planMode, String name) {
        String values = "'" + BIG + "', 'role', '" + HistoryReader.likeLiteral(name).replace("'", "''") + "', "
                + HistoryReader.NAMES_BY_VALUE;
        Row row = pool.withTransaction(connection -> connection.query("SET LOCAL plan_cache_mode = " + planMode)
                .execute()
                .chain(() -> connection.query("PREPARE names_probe(uuid, text, text, int) AS " + HistoryReader.NAMES)
                        .execute())
                .chain(() -> connection.query("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE names_probe(" + values
                        + ")").execute())
                .call(() -> connection.query("DEALLOCATE names_probe").execute())
                .map(rows -> rows.iterator().next()))
                .await().atMost(Duration.ofSeconds(30));
        Object json = row.getValue(0);
        JsonArray explained = json instanceof JsonArray array ? array : new JsonArray(json.toString());
        return explained.getJsonObject(0).getJsonObject("Plan");
    }

    /** The plan's node that reads history.name_total. */
    private static JsonObject scanOfNameTotal(JsonObject node) {
        if ("name_total".equals(node.getString("Relation Name"))) {
            return node;
        }
        JsonArray children = node.getJsonArray("Plans", new JsonArray());
        for (int i = 0; i < children.size(); i++) {
            JsonObject found = scanOfNameTotal(children.getJsonObject(i));
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private static long pagesRead(JsonObject plan) {
        return plan.getLong("Shared Hit Blocks", 0L) + plan.getLong("Shared Read Blocks", 0L);
    }
}
