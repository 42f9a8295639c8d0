package io.outpost.notification.service;

import java.time.Duration;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.outpost.notification.store.NotificationStore;
import io.outpost.support.security.TokenVerifier;
import io.outpost.support.security.VerifiedToken;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.vertx.core.Vertx;

/** Long polls of a player's own notifications (spec §4.2, DESIGN §4). */
@ApplicationScoped
public class PollService {

    /** How long stopping waits for held polls to be answered. */
    private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(5);

    private static final Runnable NOTHING = () -> {
    };

    private final NotificationStore store;
    private final PollRegistry registry;
    private final Vertx vertx;
    private final TokenVerifier tokens;

    public PollService(NotificationStore store, PollRegistry registry, Vertx vertx, TokenVerifier tokens) {
        this.store = store;
        this.registry = registry;
        this.vertx = vertx;
        this.tokens = tokens;
    }

    /**
     * Answers {@code answer} as soon as the player has notifications after the request's cursor, or with an empty
     * page at the deadline; refuses it with {@link PollRefusedException} past a limit. The poll lasts no longer
     * than {@code token}: it is answered with the verifier's refusal (403) within moments of the token's revocation
     * or at its {@code exp}, whichever comes before the deadline, and never delivers a notification after that
     * (DESIGN §4a). Answers the handle that lets go of the poll when the client goes away first.
     */
    public Runnable poll(PollRequest request, VerifiedToken token, PollAnswer answer) {
        HeldPoll poll = new HeldPoll(request, token, tokens, store, registry.host(), vertx, answer);
        Cursors.Start known;
        try {
            known = registry.admit(poll);
        } catch (PollRefusedException refused) {
            answer.failed(refused); // never admitted: nothing to let go of
            return NOTHING;
        }
        poll.begin(known);
        return poll::release;
    }

    /**
     * First thing when stopping, before the HTTP server waits for open requests (quarkus.shutdown.timeout): every
     * held poll gets its answer, an empty page with its cursor. Fired because {@code quarkus.shutdown.delay-enabled}.
     */
    void answerHeldPolls(@Observes ShutdownDelayInitiatedEvent event) {
        registry.answerAll(SHUTDOWN_GRACE);
    }

    /** The same, should the delay phase be configured away. */
    void answerHeldPolls(@Observes @Priority(1) ShutdownEvent event) {
        registry.answerAll(SHUTDOWN_GRACE);
    }
}
