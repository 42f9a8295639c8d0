package io.outpost.notification.service;

import java.time.Duration;
import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.outpost.notification.config.NotificationConfig;
import io.outpost.notification.store.InboxStore;
import io.outpost.notification.store.NotificationStore;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;

/**
 * Deletes notifications stored longer ago than {@code retention} in the background, a prefix of each player's
 * sequence at a time (so a cursor never points into a hole), a bounded number of players per transaction so no
 * transaction grows with the backlog. Every replica may run it; deleting twice is harmless.
 */
@ApplicationScoped
public class RetentionPurge {

    private static final Logger LOG = Logger.getLogger(RetentionPurge.class);
    /** Players purged per statement. */
    private static final int CHUNK = 1_000;

    private final NotificationStore store;
    private final InboxStore inbox;
    private final NotificationConfig config;
    private final Vertx vertx;
    private long timer = -1;

    public RetentionPurge(NotificationStore store, InboxStore inbox, NotificationConfig config, Vertx vertx) {
        this.store = store;
        this.inbox = inbox;
        this.config = config;
        this.vertx = vertx;
    }

    void onStart(@Observes StartupEvent event) {
        timer = vertx.setPeriodic(config.purgeInterval().toMillis(), id -> purge().subscribe().with(
                purged -> {
                    if (purged > 0) {
                        LOG.infof("purged %d notifications stored more than %s ago", purged, config.retention());
                    }
                },
                failure -> LOG.warnf("retention purge failed, next try in %s: %s", config.purgeInterval(), failure)));
    }

    void onStop(@Observes ShutdownEvent event) {
        vertx.cancelTimer(timer);
    }

    /**
     * Deletes every notification stored before now minus the retention, and empties every deleted or expired one
     * (its row stays, the cursor's place); answers how many were deleted.
     */
    public Uni<Long> purge() {
        return purgeFrom(Instant.now().minus(config.retention()), 0).call(() -> emptyHidden(0));
    }

    private Uni<Long> emptyHidden(long sofar) {
        return inbox.emptyHidden(CHUNK).chain(emptied -> emptied == 0
                ? Uni.createFrom().item(sofar)
                : emptyHidden(sofar + emptied));
    }

    private Uni<Long> purgeFrom(Instant cutoff, long sofar) {
        return store.purgeStoredBefore(cutoff, CHUNK).chain(deleted -> deleted == 0
                ? Uni.createFrom().item(sofar + deleted)
                : purgeFrom(cutoff, sofar + deleted));
    }

    Duration retention() {
        return config.retention();
    }
}
