package io.outpost.history.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;
import java.util.function.IntConsumer;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.outpost.history.store.NameFold;
import io.outpost.model.error.ErrorDetail;
import io.outpost.testsupport.Allocations;

/**
 * What the ingest's per-record checks of a valid snapshot cost: heap bytes per call ({@link Allocations}).
 */
class IngestAllocationTest {

    private static final int CALLS = 20_000;
    private static final List<Object> AT = ErrorDetail.loc("value", "version");

    private static double bytesPerCall(IntConsumer call) {
        return Allocations.bytesPerCall(CALLS, call);
    }

    /** Three containers, fifteen numbers: a frame and an iterator per container, nothing per value. */
    @Test
    void aValidSnapshotsNumbersAreCheckedWithoutAnAllocationPerValue() {
        JsonNodeFactory json = JsonNodeFactory.withExactBigDecimals(true);
        ObjectNode snapshot = json.objectNode().put("name", "admin").put("weight", new BigDecimal("0.25"));
        snapshot.putArray("limits").add(1).add(2).add(3).add(4).add(5).add(6).add(7).add(8).add(9).add(10);
        snapshot.putObject("caps").put("a", 1L << 40).put("b", 2).put("c", 3).put("d", 4);
        Object[] kept = new Object[1];

        double bytes = bytesPerCall(i -> kept[0] = JsonbNumbers.firstFault(AT, snapshot));

        assertThat(kept[0]).isNull();
        assertThat(bytes).isLessThanOrEqualTo(300);
    }

    @Test
    void anAsciiRoleNameCostsAtMostItsLowerCaseCopy() {
        String[] names = {"Admin", "match-maker", "Release Manager 2"};
        Object[] kept = new Object[1];

        double bytes = bytesPerCall(i -> kept[0] = NameFold.fold(names[i % names.length]));

        assertThat(bytes).isLessThanOrEqualTo(48); // "Admin" and the third copied (~56 bytes), "match-maker" not
    }
}
