package io.outpost.notification;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * One application for the tests that need a setting smaller than the default, so that Quarkus boots once for all of
 * them instead of once per setting (each profile costs a build and a start of the application). Each setting is what
 * one test needs and leaves the others' assertions as they were:
 * <ul>
 * <li>{@code ingest-store-timeout} 1 s: {@link AbandonedInsertTest} shows an insert given up on at that timeout is
 * cancelled; the others store small batches, far below it (a batch given up on is retried, never dead-lettered).</li>
 * <li>{@code ingest-batch-size} 10: {@link BrokerRestartTest} keeps its ingest slow enough to be interrupted; the
 * others send a record or none.</li>
 * <li>{@code max-polls-per-player} 2, {@code max-other-polls-per-player} 1, {@code max-polls} 3:
 * {@link PollLimitsTest}; the others hold no poll (one
 * {@code deadline=0} poll at a time at most).</li>
 * </ul>
 * The classes of one profile run one after the other in the order of their names: {@link DeadLetterMetricsTest}
 * (every reason at zero) after tests that dead-letter nothing, and {@link PollLimitsTest}, which leaves the poll
 * registry closed as a stopping instance does, last.
 */
public class SmallSettingsProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("outpost.notification.ingest-store-timeout", "PT1S",
                "outpost.notification.ingest-batch-size", "10",
                "outpost.notification.max-polls-per-player", "2",
                "outpost.notification.max-other-polls-per-player", "1",
                "outpost.notification.max-polls", "3");
    }
}
