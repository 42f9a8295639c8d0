package io.outpost.auth;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.outpost.testsupport.MutableClock;

/**
 * The clock of auth-service under test: the system time, which a test may move forward (grace periods, key
 * schedules) and must reset when done.
 */
public class TestClock {

    @Produces
    @Singleton
    MutableClock clock() {
        return new MutableClock();
    }
}
