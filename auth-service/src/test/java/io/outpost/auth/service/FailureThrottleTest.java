package io.outpost.auth.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.outpost.auth.TestConfigs;

/**
 * The throttle's bounded memory cannot be turned against it: a flood of new keys (the old maps cleared everything at
 * their bound) evicts what is seen once, not the counters of an attack that goes on.
 */
class FailureThrottleTest {

    @Test
    void aFloodOfNewIdsAndAddressesDoesNotResetTheCountersUnderAttack() {
        // the clock stands still: however long the flood takes (seconds on a busy machine), the victim's next
        // ration stays a second away
        long now = System.nanoTime();
        FailureThrottle throttle = new FailureThrottle(TestConfigs.auth(Map.of("throttle.max-tracked", "100",
                "throttle.locked-checks-per-second", "1")), () -> now);
        for (int i = 0; i < 30; i++) {
            throttle.failed("victim", "10.0.0.1");
        }
        assertThat(throttle.addressRetryAfter("10.0.0.1")).isPresent();
        assertThat(throttle.clientRetryAfter("victim")).as("one rationed check").isEmpty();
        assertThat(throttle.clientRetryAfter("victim")).as("then a wait").isPresent();
        // 100 times what is tracked, each key seen once, while the attack on the victim goes on
        for (int i = 0; i < 10_000; i++) {
            throttle.failed("made-up-" + i, "192.0.2." + i);
            if (i % 100 == 0) {
                throttle.failed("victim", "10.0.0.1");
            }
        }
        assertThat(throttle.addressRetryAfter("10.0.0.1")).as("the attacked address is still counted").isPresent();
        assertThat(throttle.clientRetryAfter("victim")).as("the attacked id is still rationed").isPresent();
    }

    @Test
    void anIdUnderItsBudgetIsNeverRationed() {
        FailureThrottle throttle = new FailureThrottle(TestConfigs.auth(Map.of()));
        for (int i = 0; i < 9; i++) {
            throttle.failed("client", "10.0.0." + i);
            assertThat(throttle.clientRetryAfter("client")).isEmpty();
        }
    }
}
