package io.outpost.support.http;

import static io.outpost.model.error.ErrorDetail.loc;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

import org.junit.jupiter.api.Test;

import io.outpost.model.RequestPaths;
import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;
import io.outpost.testsupport.Allocations;

/**
 * What a valid input costs common-model's checks, run for every request's query and path and every ingested
 * record: heap bytes per call ({@link Allocations}). A regular expression's matcher, a BigInteger or a copied
 * location list each cost more than these bounds.
 */
class CheckAllocationTest {

    private static final int CALLS = 100_000;
    private static final List<Object> AT = loc("value");

    private static double bytesPerCall(IntConsumer call) {
        return Allocations.bytesPerCall(CALLS, call);
    }

    @Test
    void aCanonicalUuidCostsItsUuidAlone() {
        List<ErrorDetail> out = new ArrayList<>();
        String[] texts = {"5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f", "5F0C6D4E-8A1B-4C2D-9E3F-0A1B2C3D4E5F"};
        Object[] kept = new Object[1];

        double bytes = bytesPerCall(i -> kept[0] = Constraints.uuid(out, AT, texts[i & 1]));

        assertThat(out).isEmpty();
        assertThat(bytes).isLessThanOrEqualTo(40); // a UUID: 32 bytes with compressed oops
    }

    @Test
    void anOrdinaryQueryNumberCostsNothing() {
        List<ErrorDetail> out = new ArrayList<>();
        String[] texts = {"25", "100", " 7 ", "+4", "-3"};
        Object[] kept = new Object[1];

        double bytes = bytesPerCall(i -> kept[0] = Constraints.integer(out, AT, texts[i % texts.length], -5, 10_000));

        assertThat(out).isEmpty();
        assertThat(bytes).isLessThanOrEqualTo(16); // " 7 " strips to a new string (~48 bytes) one call in five
    }

    @Test
    void anOrdinaryRequestPathCostsNothing() {
        String[] targets = {"/notification/v1/player/me/stream/notification/lp?deadline=30&exclude_before=42",
            "/v1/history/sandbox/5f0c6d4e-8a1b-4c2d-9e3f-0a1b2c3d4e5f/role?page_size=50", "/q/health/ready"};
        Object[] kept = new Object[1];

        double bytes = bytesPerCall(i -> kept[0] = RequestPaths.fault(targets[i % targets.length]));

        assertThat(kept[0]).isNull();
        assertThat(bytes).isLessThanOrEqualTo(1);
    }

    @Test
    void aFieldLocationCostsOneSmallObject() {
        Object[] kept = new Object[1];

        double bytes = bytesPerCall(i -> kept[0] = loc(AT, "sandbox_id"));

        assertThat(bytes).isLessThanOrEqualTo(32);
    }
}
