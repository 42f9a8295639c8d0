package io.outpost.notification.store;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The parameters of a statement that takes many rows at once: each column of {@code rows} as one array, in the
 * order the statement's {@code unnest(...)} reads them, after any single parameters given first.
 */
final class Columns<T> {

    private final List<T> rows;
    private final Tuple tuple;

    private Columns(List<T> rows, Tuple tuple) {
        this.rows = rows;
        this.tuple = tuple;
    }

    /** {@code rows}' columns, after the single parameters {@code first} (if any). */
    static <T> Columns<T> of(List<T> rows, Object... first) {
        return new Columns<>(rows, Tuple.tuple(List.of(first)));
    }

    Columns<T> uuids(Function<T, UUID> column) {
        tuple.addArrayOfUUID(fill(new UUID[rows.size()], column));
        return this;
    }

    Columns<T> strings(Function<T, String> column) {
        tuple.addArrayOfString(fill(new String[rows.size()], column));
        return this;
    }

    Columns<T> longs(Function<T, Long> column) {
        tuple.addArrayOfLong(fill(new Long[rows.size()], column));
        return this;
    }

    Columns<T> ints(Function<T, Integer> column) {
        tuple.addArrayOfInteger(fill(new Integer[rows.size()], column));
        return this;
    }

    Columns<T> booleans(Function<T, Boolean> column) {
        tuple.addArrayOfBoolean(fill(new Boolean[rows.size()], column));
        return this;
    }

    Columns<T> times(Function<T, OffsetDateTime> column) {
        tuple.addArrayOfOffsetDateTime(fill(new OffsetDateTime[rows.size()], column));
        return this;
    }

    Tuple tuple() {
        return tuple;
    }

    private <C> C[] fill(C[] array, Function<T, ? extends C> column) {
        for (int i = 0; i < array.length; i++) {
            array[i] = column.apply(rows.get(i));
        }
        return array;
    }
}
