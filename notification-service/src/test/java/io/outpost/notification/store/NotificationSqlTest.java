package io.outpost.notification.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

/**
 * Every statement stays prepared on its connection: a text longer than its pool's prepared-statement cache allows
 * is sent unnamed, parsed and planned on every execution (the batch insert: ≈ 2 ms more a batch).
 */
class NotificationSqlTest {

    /** Vert.x's default limit, that of the pool Quarkus makes (reads of the request path, the purge). */
    private static final int QUARKUS_POOL_LIMIT = 2048;

    @Test
    void everyStatementFitsThePreparedStatementCacheOfThePoolThatRunsIt() throws Exception {
        Map<String, Integer> lengths = new TreeMap<>();
        for (Field field : NotificationSql.class.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                field.setAccessible(true);
                lengths.put(field.getName(), ((String) field.get(null)).length());
            }
        }
        assertThat(lengths).containsKeys("INSERT_BATCH", "PAGE", "START_MANY", "AFTER_MANY");
        lengths.forEach((name, length) -> {
            // the batch insert runs on the ingest pool (DatabaseConnections), the rest on Quarkus's
            int limit = name.equals("INSERT_BATCH") ? DatabaseConnections.STATEMENT_CACHE_SQL_LIMIT : QUARKUS_POOL_LIMIT;
            assertThat(length).as(name).isLessThanOrEqualTo(limit);
        });
    }
}
