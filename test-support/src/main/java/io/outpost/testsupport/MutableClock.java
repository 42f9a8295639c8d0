package io.outpost.testsupport;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that tests move forward, so that time-based behaviour (key schedules, grace periods, throttle windows,
 * back-off) is tested without sleeping: either the system time plus an offset (a test module offers it as its
 * {@link Clock} bean; a test that moves it resets it when done) or, for unit tests, a frozen time that moves only
 * when told.
 */
public final class MutableClock extends Clock {

    private final Instant frozen;
    private volatile Duration offset = Duration.ZERO;

    /** The system time, plus whatever {@link #advance} adds. */
    public MutableClock() {
        this(null);
    }

    private MutableClock(Instant frozen) {
        this.frozen = frozen;
    }

    /** A clock that stands still at {@code start} until advanced. */
    public static MutableClock frozenAt(Instant start) {
        return new MutableClock(start);
    }

    /** Moves this clock forward. */
    public void advance(Duration by) {
        offset = offset.plus(by);
    }

    /** Back to the system time. */
    public void reset() {
        offset = Duration.ZERO;
    }

    @Override
    public Instant instant() {
        return (frozen != null ? frozen : Instant.now()).plus(offset);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a test clock is always UTC");
    }
}
