package io.outpost.notification.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.outpost.notification.config.NotificationConfig;
import io.outpost.notification.service.PollRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnection;

/**
 * Listens on {@link NotificationStore#WAKE_CHANNEL} over one dedicated PostgreSQL connection per instance, so
 * that polls held here wake when any replica stores a notification for their player.
 *
 * <p>The connection is watched: a {@code SELECT 1} every {@value #KEEPALIVE_SECONDS} s must answer within
 * {@value #KEEPALIVE_TIMEOUT_SECONDS} s, or the connection is dropped (a silent network or a hung server looks
 * alive otherwise). A lost or failed connection — the first one included — is opened again after
 * {@code listen-reconnect-delay}, for as long as the instance runs; since announcements sent meanwhile are
 * gone, the registry then rechecks every held poll (batched). The instance is not ready while it does not
 * listen ({@link WakeListenerChecks}).
 */
@ApplicationScoped
public class WakeListener {

    /** How the LISTEN connection names itself to PostgreSQL ({@code pg_stat_activity.application_name}). */
    public static final String APPLICATION_NAME = "outpost-wake-listener";
    private static final Logger LOG = Logger.getLogger(WakeListener.class);
    static final int KEEPALIVE_SECONDS = 15;
    static final int KEEPALIVE_TIMEOUT_SECONDS = 5;
    private static final Duration FIRST_WAIT = Duration.ofSeconds(10);

    private final PollRegistry registry;
    /** Announcements of what another instance stored, and of what this one stored (skipped). */
    private final Counter fromOthers;
    private final Counter fromSelf;
    private final Vertx vertx;
    private final DatabaseConnections connections;
    private final long reconnectMillis;
    private final CompletableFuture<Void> firstListen = new CompletableFuture<>();
    private volatile PgConnection connection;
    private volatile boolean listening;
    private volatile long downSince = System.nanoTime();
    private volatile boolean stopped;
    private long keepalive = -1;

    public WakeListener(PollRegistry registry, Vertx vertx, NotificationConfig config, DatabaseConnections connections,
            MeterRegistry meters) {
        this.fromOthers = announcements(meters, "other");
        this.fromSelf = announcements(meters, "self");
        this.registry = registry;
        this.vertx = vertx;
        this.connections = connections;
        this.reconnectMillis = Math.max(1, config.listenReconnectDelay().toMillis());
    }

    private static Counter announcements(MeterRegistry meters, String origin) {
        return Counter.builder("outpost.notification.announcements").tag("origin", origin)
                .description("Announcements of stored notifications received (one NOTIFY names up to 100 players), "
                        + "by whether this instance's own ingest stored them (skipped) or another's")
                .register(meters);
    }

    /** Listening before the instance takes requests, so no announcement is missed after start. */
    void start(@Observes StartupEvent event) {
        connect();
        keepalive = vertx.setPeriodic(TimeUnit.SECONDS.toMillis(KEEPALIVE_SECONDS), id -> checkAlive());
        try {
            firstListen.get(FIRST_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.warnf("not listening for stored notifications after %s; not ready until it does", FIRST_WAIT);
        }
    }

    void stop(@Observes ShutdownEvent event) {
        stopped = true;
        vertx.cancelTimer(keepalive);
        PgConnection current = connection;
        if (current != null) {
            current.close();
        }
    }

    /** True while the LISTEN is in place. */
    public boolean listening() {
        return listening;
    }

    /** How long it has not been listening (zero while it is). */
    public Duration downFor() {
        return listening ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - downSince);
    }

    private void connect() {
        if (stopped) {
            return;
        }
        PgConnection.connect(vertx, connections.listenOptions()).onComplete(opened -> {
            if (opened.failed()) {
                retry("cannot connect: " + opened.cause().getMessage());
                return;
            }
            PgConnection conn = opened.result();
            connection = conn;
            conn.notificationHandler(notification -> announced(notification.getPayload()));
            conn.closeHandler(v -> lost(conn));
            conn.exceptionHandler(failure -> LOG.debugf("LISTEN connection: %s", failure.getMessage()));
            conn.query("LISTEN " + NotificationStore.WAKE_CHANNEL).execute().onComplete(listened -> {
                if (listened.failed()) {
                    conn.close(); // the close handler retries
                    return;
                }
                listening = true;
                LOG.debug("listening for stored notifications");
                firstListen.complete(null);
                registry.announcementsComplete(true);
                registry.recheck(); // whatever was announced while not listening
            });
        });
    }

    private void lost(PgConnection conn) {
        if (connection != conn) {
            return;
        }
        connection = null;
        retry("connection lost");
    }

    private void retry(String why) {
        if (listening) {
            downSince = System.nanoTime();
        }
        listening = false;
        registry.announcementsComplete(false);
        if (!stopped) {
            LOG.warnf("not listening for stored notifications (%s); retrying in %d ms", why, reconnectMillis);
            vertx.setTimer(reconnectMillis, id -> connect());
        }
    }

    private void checkAlive() {
        PgConnection conn = connection;
        if (conn == null || !listening) {
            return;
        }
        conn.query("SELECT 1").execute()
                .timeout(KEEPALIVE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                .onFailure(failure -> {
                    LOG.warnf("LISTEN connection did not answer (%s); opening a new one", failure.getMessage());
                    conn.close();
                });
    }

    /**
     * "origin|player:first:last,…" (or, from older instances, "player:first:last,…" or bare player uuids): one
     * batch of polls. What this instance's own ingest stored is skipped: it is handed to the polls directly.
     */
    private void announced(String payload) {
        int bar = payload.indexOf('|');
        if (bar >= 0 && payload.regionMatches(0, DatabaseConnections.INGEST_APPLICATION_NAME, 0, bar)
                && bar == DatabaseConnections.INGEST_APPLICATION_NAME.length()) {
            fromSelf.increment();
            return;
        }
        fromOthers.increment();
        List<PollRegistry.Announcement> announcements = new ArrayList<>();
        for (String entry : payload.substring(bar + 1).split(",")) {
            String[] parts = entry.split(":");
            try {
                UUID player = UUID.fromString(parts[0]);
                announcements.add(parts.length == 3
                        ? new PollRegistry.Announcement(player, Long.parseLong(parts[1]), Long.parseLong(parts[2]))
                        : new PollRegistry.Announcement(player, -1, -1));
            } catch (IllegalArgumentException ignored) {
                // not ours: only the notification table's trigger writes to this channel
            }
        }
        registry.announced(announcements);
    }
}
