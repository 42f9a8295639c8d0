package io.outpost.notification.service;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import org.jboss.logging.Logger;

import io.outpost.model.api.Notification;
import io.outpost.model.api.NotificationPage;
import io.outpost.model.error.AuthErrorCode;
import io.outpost.notification.store.NotificationStore;
import io.outpost.notification.store.StoredBatch;
import io.outpost.notification.store.StoredNotification;
import io.outpost.support.security.AuthRefusedException;
import io.outpost.support.security.TokenVerifier;
import io.outpost.support.security.VerifiedToken;
import io.outpost.support.store.StoreFault;
import io.vertx.core.Vertx;

/**
 * One long poll in flight. While it waits it holds no thread and no database connection: only this object,
 * a Vert.x timer for its deadline and its entry in {@link PollRegistry}.
 *
 * <p>It is registered before its first query, so a notification committed at any moment is either seen by that
 * query or announced afterwards. Where it stands and how it moves on is its {@link PollProgress}, reached only
 * through {@link #step} (under the poll's lock); what a step decides — fetch, answer, nothing — is done after the
 * lock is let go. It answers exactly once ({@link OnceAnswer}) and reaches its registry only through
 * {@link PollHost}.
 *
 * <p>It lasts no longer than the token that opened it: every answer is given only while the token may still be
 * used ({@link TokenVerifier#refusalOf}), its timer fires at the token's {@code exp} when that comes before the
 * deadline, and the registry has it look again whenever a revocation arrives ({@link #endIfRefused}). Otherwise
 * the answer is the verifier's 403.
 */
final class HeldPoll {

    private static final Logger LOG = Logger.getLogger(HeldPoll.class);

    /** A sequence not said. */
    static final long UNKNOWN = -1;

    /** The poll wants the store's notifications after {@code want.after()}: the registry fetches them. */
    record Need(HeldPoll poll, NotificationStore.Want want) {
    }

    private final PollRequest request;
    private final VerifiedToken token;
    private final TokenVerifier tokens;
    private final NotificationStore store;
    private final PollHost host;
    private final Vertx vertx;
    private final OnceAnswer answer;
    private final PollProgress progress;
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile PlayerPolls player;
    /** The strategy that decided the start when the client's cursor named nothing the stream holds, else null. */
    private volatile String cursorReset;
    private volatile long timer = -1;

    HeldPoll(PollRequest request, VerifiedToken token, TokenVerifier tokens, NotificationStore store, PollHost host,
            Vertx vertx, PollAnswer client) {
        this.request = request;
        this.token = token;
        this.tokens = tokens;
        this.store = store;
        this.host = host;
        this.vertx = vertx;
        this.progress = new PollProgress(request);
        this.answer = new OnceAnswer(client, this::release);
    }

    PollRequest request() {
        return request;
    }

    /** The token that opened the poll. */
    VerifiedToken token() {
        return token;
    }

    /** The one way to the poll's progress: {@code rule} runs under the poll's lock, nothing else touches it. */
    private <T> T step(Function<PollProgress, T> rule) {
        synchronized (progress) {
            return rule.apply(progress);
        }
    }

    /** Started, and waiting for notifications (no query of its own in flight). */
    boolean waiting() {
        return step(PollProgress::waiting);
    }

    /** The player's entry this poll was admitted into. */
    void watching(PlayerPolls player) {
        this.player = player;
    }

    /**
     * Starts the poll: where the registry already knows ({@code known}: the client re-polls with the cursor it
     * was just given and nothing newer was announced) it waits without a query; otherwise one query resolves
     * the cursor and reads what follows.
     */
    void begin(Cursors.Start known) {
        if (known != null) {
            started(known, List.of(), false);
            return;
        }
        String cursor = request.excludeBefore();
        store.start(request.player(), cursor, Cursors.token(cursor), request.earliest(), request.maxPageSize())
                .subscribe().with(first -> started(Cursors.resolve(cursor, request.earliest(), first.lookup()),
                        first.page(), true), answer::failed); // a failed start is the request's answer (503)
    }

    private void started(Cursors.Start resolved, List<StoredNotification> page, boolean queried) {
        if (resolved.reset()) {
            cursorReset = request.earliest() ? "earliest" : "latest";
        }
        PollProgress.Step next = step(p -> p.started(resolved, queried));
        if (next == null) {
            return;
        }
        armTimer();
        if (next instanceof PollProgress.Fetch fetch) {
            fetch(fetch.want());
        } else {
            fetched(page);
        }
    }

    /** The deadline, or the token's {@code exp} when that comes first; cancelled by {@link #release}. */
    private void armTimer() {
        long millis = request.deadline().toMillis();
        if (millis <= 0 || host.closing()) {
            return;
        }
        long untilExpiry = token.expiresAt().toEpochMilli() - System.currentTimeMillis();
        long id = untilExpiry < millis ? vertx.setTimer(Math.max(1, untilExpiry), fired -> expired())
                : vertx.setTimer(millis, fired -> answerEmpty());
        timer = id;
        if (released.get()) {
            vertx.cancelTimer(id); // released while the timer was being set
        }
    }

    /**
     * Notifications {@code first..last} were announced for this player ({@link #UNKNOWN} when not said). Answers
     * what the poll now needs from the store, or null.
     */
    Need announce(long first, long last) {
        return need(step(p -> p.announced(first, last)));
    }

    /**
     * This instance just stored {@code part} for the player. A poll that has everything before it is answered
     * from it; one with a gap before it answers what it needs from the store; otherwise null.
     */
    Need offer(StoredBatch.Player part) {
        PollProgress.Step next = step(p -> p.offered(part));
        if (next instanceof PollProgress.Answer page) {
            answer(new NotificationPage(page.page(), page.page().get(page.page().size() - 1).notificationId()),
                    page.cursorSeq(), page.full());
            return null;
        }
        return need(next);
    }

    private Need need(PollProgress.Step step) {
        return step instanceof PollProgress.Fetch fetch ? new Need(this, fetch.want()) : null;
    }

    /** The deadline passed, or the instance is stopping: an empty page with the poll's cursor. */
    void answerEmpty() {
        Cursors.Start at = step(PollProgress::endEmpty);
        if (at != null) {
            answer(new NotificationPage(List.of(), at.emptyCursor()), at.afterSeq(), false);
        }
    }

    /** What the store has after the poll's start (the registry's query, or the poll's own). */
    void fetched(List<StoredNotification> found) {
        if (!found.isEmpty()) {
            if (step(PollProgress::end)) {
                List<Notification> page = found.stream().map(StoredNotification::notification).toList();
                answer(new NotificationPage(page, page.get(page.size() - 1).notificationId()),
                        found.get(found.size() - 1).seq(), found.size() >= request.maxPageSize());
            }
            return;
        }
        if (request.deadline().isZero() || host.closing()) {
            answerEmpty();
            return;
        }
        if (step(PollProgress::foundNothing) instanceof PollProgress.Fetch fetch) {
            fetch(fetch.want());
        }
    }

    void fetchFailed(Throwable failure) {
        if (!StoreFault.of(failure).healable()) {
            answer.failed(failure);
            return;
        }
        if (step(PollProgress::waitForRecheck)) {
            LOG.debugf("a held poll could not look for notifications (%s); it waits for the recheck",
                    failure.getMessage());
            host.recheckSoon();
        }
    }

    /** A query of the poll's own (its start moved back, or something arrived while its last query ran). */
    private void fetch(NotificationStore.Want want) {
        store.after(want.player(), want.after(), want.limit()).subscribe().with(this::fetched, this::fetchFailed);
    }

    /** The token's {@code exp} came before the deadline. */
    private void expired() {
        AuthRefusedException refusal = tokens.refusalOf(token);
        end(refusal != null ? refusal
                : new AuthRefusedException(AuthErrorCode.TOKEN_EXPIRED, "The access token has expired"));
    }

    /** A revocation arrived: the poll ends with the verifier's refusal when its token is no longer good. */
    void endIfRefused() {
        AuthRefusedException refusal = tokens.refusalOf(token);
        if (refusal != null) {
            end(refusal);
        }
    }

    private void end(AuthRefusedException refusal) {
        if (step(PollProgress::end)) {
            answer.failed(refusal);
        }
    }

    /**
     * The poll's answer — or the verifier's refusal, when the token is no longer good; the player's entry keeps its
     * cursor for the client's next poll.
     */
    private void answer(NotificationPage page, long cursorSeq, boolean full) {
        AuthRefusedException refusal = tokens.refusalOf(token);
        if (refusal != null) {
            answer.failed(refusal);
            return;
        }
        player.answered(page.cursor(), cursorSeq, full);
        answer.page(page, cursorReset);
    }

    /** Lets go of the poll's place and timer: once it is answered, or when the client has gone. Idempotent. */
    void release() {
        if (!released.compareAndSet(false, true)) {
            return;
        }
        step(PollProgress::end);
        long pending = timer;
        if (pending != -1) {
            vertx.cancelTimer(pending);
        }
        host.release(this);
    }
}
