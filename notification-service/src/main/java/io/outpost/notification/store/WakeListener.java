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
import io.outpost.model.Uuids;
import io.outpost.notification.config.NotificationConfig;
import io.outpost.notification.service.PollRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnection;

/**
 * Listens on {@link NotificationStore#WAKE_CHANNEL} over one dedicated PostgreSQL connection per instance, so
 * that polls held here wake when any replica stores a notification for their player.
 *
 * <p>The connection is watched: a {@code SELECT 1} every {@code listen-keepalive-interval} (15 s) must answer
 * within {@value #ANSWER_WITHIN_SECONDS} s, or the connection is given up at once (a silent network or a hung
 * server looks alive otherwise, and closing such a connection can itself wait for as long as TCP retransmits).
 * Opening one, LISTEN included, is bounded the same way. A lost, silent or failed connection — the first one
 * included — is opened again after {@code listen-reconnect-delay}, for as long as the instance runs; since
 * announcements sent meanwhile are gone, the registry forgets what it remembered for re-polls the moment the
 * connection is given up, and rechecks every held poll (batched) once it listens again. The instance is not ready
 * while it does not listen ({@link WakeListenerChecks}). While it cannot listen, one warning is logged when that
 * starts and one a minute after; listening again is logged once.
 */
@ApplicationScoped
public class WakeListener {

    /** How the LISTEN connection names itself to PostgreSQL ({@code pg_stat_activity.application_name}). */
    public static final String APPLICATION_NAME = "outpost-wake-listener";
    private static final Logger LOG = Logger.getLogger(WakeListener.class);
    /** The most a keepalive, a LISTEN or (beyond the connect timeout) an opening connection may take. */
    static final int ANSWER_WITHIN_SECONDS = 5;
    private static final Duration FIRST_WAIT = Duration.ofSeconds(10);
    /** How long a stopping instance waits for a connection still being opened to settle. */
    private static final Duration SETTLE_ON_STOP = Duration.ofSeconds(2);
    private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final PollRegistry registry;
    /** Announcements of what another instance stored, and of what this one stored (skipped). */
    private final Counter fromOthers;
    private final Counter fromSelf;
    private final Vertx vertx;
    private final DatabaseConnections connections;
    private final long reconnectMillis;
    private final long keepaliveMillis;
    private final long openWithinMillis;
    private final CompletableFuture<Void> firstListen = new CompletableFuture<>();
    private volatile PgConnection connection;
    /** The connection being opened, until it is open, given up or failed. */
    private volatile Future<PgConnection> opening;
    private volatile boolean listening;
    private volatile long downSince = System.nanoTime();
    private volatile boolean stopped;
    private long keepalive = -1;
    /** Whether (and when last) not listening was warned about, in this outage. */
    private volatile boolean warned;
    private volatile long warnedAt;

    public WakeListener(PollRegistry registry, Vertx vertx, NotificationConfig config, DatabaseConnections connections,
            MeterRegistry meters) {
        this.fromOthers = announcements(meters, "other");
        this.fromSelf = announcements(meters, "self");
        this.registry = registry;
        this.vertx = vertx;
        this.connections = connections;
        this.reconnectMillis = Math.max(1, config.listenReconnectDelay().toMillis());
        this.keepaliveMillis = Math.max(1, config.listenKeepaliveInterval().toMillis());
        this.openWithinMillis = connections.listenOptions().getConnectTimeout()
                + TimeUnit.SECONDS.toMillis(ANSWER_WITHIN_SECONDS);
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
        keepalive = vertx.setPeriodic(keepaliveMillis, id -> checkAlive());
        try {
            firstListen.get(FIRST_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.warnf("not listening for stored notifications after %s; not ready until it does", FIRST_WAIT);
        }
    }

    /**
     * Closes the connection, after letting one still being opened settle (briefly): a connection attempt left
     * pending when Vert.x stops completes on a closed event loop.
     */
    void stop(@Observes ShutdownEvent event) {
        stopped = true;
        vertx.cancelTimer(keepalive);
        Future<PgConnection> pending = opening;
        if (pending != null && !pending.isComplete()) {
            try {
                pending.toCompletionStage().toCompletableFuture().get(SETTLE_ON_STOP.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                LOG.debugf("LISTEN connection still opening at shutdown: %s", e.getMessage());
            }
        }
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
        Future<PgConnection> attempt = PgConnection.connect(vertx, connections.listenOptions());
        opening = attempt;
        attempt.timeout(openWithinMillis, TimeUnit.MILLISECONDS).onComplete(opened -> {
            if (opened.failed()) {
                attempt.onSuccess(PgConnection::close); // one that opens after all is not used
                retry("cannot connect: " + opened.cause().getMessage());
                return;
            }
            PgConnection conn = opened.result();
            if (stopped) {
                conn.close();
                return;
            }
            connection = conn;
            conn.notificationHandler(notification -> announced(notification.getPayload()));
            conn.closeHandler(v -> giveUp(conn, "connection lost"));
            conn.exceptionHandler(failure -> LOG.debugf("LISTEN connection: %s", failure.getMessage()));
            conn.query("LISTEN " + NotificationStore.WAKE_CHANNEL).execute()
                    .timeout(ANSWER_WITHIN_SECONDS, TimeUnit.SECONDS).onComplete(listened -> {
                        if (listened.failed()) {
                            giveUp(conn, "LISTEN failed: " + listened.cause().getMessage());
                            return;
                        }
                        if (connection != conn) {
                            return; // given up meanwhile
                        }
                        listening = true;
                        if (warned) {
                            LOG.infof("listening for stored notifications again, after %d s",
                                    Duration.ofNanos(System.nanoTime() - downSince).toSeconds());
                            warned = false;
                        }
                        LOG.debug("listening for stored notifications");
                        firstListen.complete(null);
                        registry.announcementsComplete(true);
                        registry.recheck(); // whatever was announced while not listening
                    });
        });
    }

    /**
     * Stops using {@code conn} (once: later calls for it do nothing) and opens another. It is closed, but not
     * waited for: a close that cannot reach the server hangs for as long as TCP retransmits.
     */
    private void giveUp(PgConnection conn, String why) {
        if (connection != conn) {
            return;
        }
        connection = null;
        conn.close();
        retry(why);
    }

    private void retry(String why) {
        if (listening) {
            downSince = System.nanoTime();
            listening = false;
            registry.announcementsComplete(false);
        }
        if (stopped) {
            return;
        }
        long now = System.nanoTime();
        if (!warned) {
            LOG.warnf("not listening for stored notifications (%s); retrying every %d ms", why, reconnectMillis);
            warned = true;
            warnedAt = now;
        } else if (now - warnedAt >= WARN_EVERY_NANOS) {
            LOG.warnf("still not listening for stored notifications after %d s (%s); retrying every %d ms",
                    Duration.ofNanos(now - downSince).toSeconds(), why, reconnectMillis);
            warnedAt = now;
        } else {
            LOG.debugf("not listening for stored notifications (%s); retrying in %d ms", why, reconnectMillis);
        }
        vertx.setTimer(reconnectMillis, id -> connect());
    }

    private void checkAlive() {
        PgConnection conn = connection;
        if (conn == null || !listening) {
            return;
        }
        conn.query("SELECT 1").execute()
                .timeout(ANSWER_WITHIN_SECONDS, TimeUnit.SECONDS)
                .onFailure(failure -> giveUp(conn, "the connection did not answer: " + failure.getMessage()));
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
                UUID player = Uuids.fromString(parts[0]);
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
