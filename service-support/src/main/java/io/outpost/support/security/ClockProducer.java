package io.outpost.support.security;

import java.time.Clock;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.quarkus.arc.DefaultBean;

/**
 * The time every time-based decision reads (token expiry, revocations, key schedules, grace periods, throttle
 * windows): the system clock, unless a test supplies its own {@link Clock} bean to move time without sleeping.
 */
public class ClockProducer {

    @Produces
    @Singleton
    @DefaultBean
    Clock clock() {
        return Clock.systemUTC();
    }
}
