package io.outpost.support.store;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import io.quarkus.runtime.ShutdownEvent;

/** The 503 refusals of the service's last seconds are logged before it stops, not left uncounted. */
@Singleton
public class RefusalReportAtShutdown {

    void onStop(@Observes ShutdownEvent event) {
        StoreUnavailableMapper.flushReport();
    }
}
