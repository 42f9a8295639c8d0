package io.outpost.notification.store;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.outpost.notification.config.NotificationConfig;
import io.outpost.notification.service.PollRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import io.vertx.pgclient.pubsub.PgSubscriber;

/**
 * Listens on {@link NotificationStore#WAKE_CHANNEL} over one dedicated PostgreSQL connection per instance, so
 * that polls held here wake when any replica stores a notification for their player. The connection is
 * re-established after a loss; since announcements sent meanwhile are gone, every held poll then looks again.
 */
@ApplicationScoped
public class WakeSubscriber {

    private static final Logger LOG = Logger.getLogger(WakeSubscriber.class);

    private final PollRegistry registry;
    private final Vertx vertx;
    private final PgSubscriber subscriber;
    private final long reconnectMillis;
    private volatile boolean stopped;

    public WakeSubscriber(PollRegistry registry, Vertx vertx, NotificationConfig config,
            DatabaseConnections connections) {
        this.registry = registry;
        this.vertx = vertx;
        this.reconnectMillis = Math.max(1, config.listenReconnectDelay().toMillis());
        this.subscriber = PgSubscriber.subscriber(vertx, connections.options()).reconnectPolicy(retries -> reconnectMillis);
        subscriber.channel(NotificationStore.WAKE_CHANNEL)
                .handler(this::announced)
                .subscribeHandler(subscribed -> {
                    LOG.debug("listening for stored notifications");
                    registry.wakeAll();
                });
    }

    /** Listening before the instance takes requests, so no announcement is missed after start. */
    void start(@Observes StartupEvent event) {
        try {
            subscriber.connect().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warnf("cannot listen for stored notifications yet (%s); retrying", e.getMessage());
            vertx.setTimer(reconnectMillis, id -> connect());
        }
    }

    void stop(@Observes ShutdownEvent event) {
        stopped = true;
        subscriber.close();
    }

    /** True while the LISTEN connection is up. */
    public boolean connected() {
        return !subscriber.closed() && subscriber.actualConnection() != null;
    }

    private void connect() {
        subscriber.connect().onFailure(failure -> {
            if (!stopped) {
                LOG.warnf("cannot listen for stored notifications yet (%s); retrying", failure.getMessage());
                vertx.setTimer(reconnectMillis, id -> connect());
            }
        });
    }

    private void announced(String payload) {
        for (String player : payload.split(",")) {
            try {
                registry.wake(UUID.fromString(player));
            } catch (IllegalArgumentException ignored) {
                // not ours: only ingest writes to this channel
            }
        }
    }
}
