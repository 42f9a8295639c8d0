package io.outpost.notification.rest;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.outpost.model.Limits;
import io.outpost.model.Permissions;
import io.outpost.model.api.NotificationPage;
import io.outpost.notification.service.Cursors;
import io.outpost.notification.service.PollAnswer;
import io.outpost.notification.service.PollRefusedException;
import io.outpost.notification.service.PollRequest;
import io.outpost.notification.service.PollService;
import io.outpost.support.http.InputParser;
import io.outpost.support.http.RouteAnswers;
import io.outpost.support.security.AuthRefusedException;
import io.outpost.support.security.BearerTokenFilter;
import io.outpost.support.security.TokenVerifier;
import io.outpost.support.security.VerifiedToken;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.vertx.http.runtime.security.SecurityHandlerPriorities;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Spec §4.2: a player reads their own notifications by long poll — at {@code …/player/me/…} or, as the vendor's
 * per-player path has it, {@code …/player/{player_uuid}/…} ({@link PlayerPaths}). Served by a Vert.x route below
 * Quarkus REST:
 * a held poll then keeps no REST request context, CDI request context or captured contexts (live heap per held
 * poll 10.7 → 6.5 KiB with the token headers dropped below: docs/benchmarks.md, "Long-poll memory"). It
 * checks and answers exactly as the other endpoints do ({@link BearerTokenFilter}, {@link InputParser},
 * {@link RouteAnswers}): a bearer token with one of the read permissions and a player, then the query. A held poll
 * lasts no longer than its token: it is answered 403 when the token is revoked or its client disabled, or when its
 * {@code exp} passes ({@link PollService}). As the Quarkus
 * REST endpoints do: HEAD is the poll without its body, OPTIONS lists the methods, any other method is a 405;
 * unlike them, the answer is JSON whatever the request's {@code Accept}.
 */
@Singleton
public class LongPollRoute {

    public static final String PATH = "/notification/v1/player/me/stream/notification/lp";
    /** Any player's, {@code me} or a uuid (the vendor's per-player path; a game SDK uses it when it knows its id). */
    public static final String PLAYER_PATH = "/notification/v1/player/:" + PlayerPaths.PARAMETER
            + "/stream/notification/lp";
    /** The answer's header saying which {@code offset_reset_strategy} decided the start of a lost cursor. */
    public static final String CURSOR_RESET = "x-svc-cursor-reset";
    /** The methods answered, as Quarkus REST says them for a GET resource. */
    private static final String ALLOW = "GET, HEAD, OPTIONS";
    static final String LATEST = "latest";
    static final String EARLIEST = "earliest";
    private static final String[] READ = { Permissions.NOTIFICATION_PLAYER_ALL, Permissions.NOTIFICATION_PLAYER_READ,
            Permissions.NOTIFICATION_PLAYER_SELF_ALL, Permissions.NOTIFICATION_PLAYER_SELF_READ };

    private final PollService polls;
    private final TokenVerifier verifier;
    private final RouteAnswers answers;
    /** Declared bodies above this are refused (413), as Quarkus refuses them on its routes; -1: no limit. */
    private final long maxBodyBytes;

    public LongPollRoute(PollService polls, TokenVerifier verifier, RouteAnswers answers,
            @ConfigProperty(name = "quarkus.http.limits.max-body-size") Optional<MemorySize> maxBody) {
        this.polls = polls;
        this.verifier = verifier;
        this.answers = answers;
        this.maxBodyBytes = maxBody.map(MemorySize::asLongValue).orElse(-1L);
    }

    /**
     * Installed ahead of Quarkus's HTTP security handlers (authentication at order {@code -200}, then the
     * authorization and the REST template-path lookup), which have nothing to do for a poll — no Quarkus
     * authentication mechanism is on, no HTTP permission is set, the route checks its own bearer token — and cost
     * ≈ 10 % of the service's allocation per delivered notification (docs/benchmarks.md, "Decisions"). So
     * it also comes before Quarkus's check of a declared body size (order {@code -2}), which it makes itself.
     */
    void install(@Observes Router router) {
        int order = -SecurityHandlerPriorities.AUTHENTICATION - 1;
        router.route(PATH).order(order).handler(routing -> handle(routing, PlayerPaths.ME));
        router.route(PLAYER_PATH).order(order)
                .handler(routing -> handle(routing, routing.pathParam(PlayerPaths.PARAMETER)));
    }

    /** {@code player}: the path's {@code {player}}, {@code me} or a uuid as sent. */
    private void handle(RoutingContext routing, String player) {
        HttpServerResponse response = routing.response();
        if (bodyTooLarge(routing.request())) {
            // as Quarkus refuses it on every other route: 413, no body, and the connection closed (its body unread)
            HttpConnection connection = routing.request().connection();
            response.putHeader(HttpHeaders.CONNECTION, HttpHeaders.CLOSE).setStatusCode(413)
                    .endHandler(ended -> connection.close()).end();
            return;
        }
        HttpMethod method = routing.request().method();
        if (method == HttpMethod.OPTIONS) {
            response.putHeader(HttpHeaders.ALLOW, ALLOW).end();
            return;
        }
        if (method != HttpMethod.GET && method != HttpMethod.HEAD) { // HEAD: the same poll, answered without a body
            response.putHeader(HttpHeaders.ALLOW, ALLOW);
            answers.status(response, 405, "Method Not Allowed");
            return;
        }
        HttpServerRequest request = routing.request();
        Context context = Vertx.currentContext();
        try {
            String token = BearerTokenFilter.bearerToken(request);
            // Read once: a held poll keeps none of its request's headers — no copy of the token (≈ 0.6 KiB a poll;
            // nor does a heap dump show it) and none of what a proxy and the client's HTTP library add (≈ 2 KiB
            // through an ingress, docs/benchmarks.md, "Decisions"). Nothing reads them later: the response's
            // keep-alive was decided when the request began, the forwarded address and host when it was routed,
            // the query is in the URI.
            request.headers().clear();
            verifier.verify(token).subscribe().with(
                    verified -> onContext(context, () -> start(request, verified, player)),
                    failure -> onContext(context, () -> answers.failed(response, failure)));
        } catch (RuntimeException refused) { // no bearer token
            answers.failed(response, refused);
        }
    }

    /** On the request's context: the caller's token is verified. */
    private void start(HttpServerRequest request, VerifiedToken token, String playerSegment) {
        HttpServerResponse response = request.response();
        try {
            VerifiedToken caller = BearerTokenFilter.permitted(token, READ, PlayerPaths.ME.equals(playerSegment));
            // admitted within the clock skew, a token past its exp has nothing left to hold a poll open with
            AuthRefusedException ended = verifier.refusalOf(caller);
            if (ended != null) {
                throw ended;
            }
            InputParser in = new InputParser(request);
            UUID player = PlayerPaths.forReading(caller, playerSegment, in);
            int pageSize = in.queryInt("max_page_size", Limits.POLL_PAGE_SIZE_DEFAULT, Limits.POLL_PAGE_SIZE_MIN,
                    Limits.POLL_PAGE_SIZE_MAX);
            int deadline = in.queryInt("deadline", Limits.DEADLINE_DEFAULT, Limits.DEADLINE_MIN, Limits.DEADLINE_MAX);
            String strategy = in.queryChoice("offset_reset_strategy", List.of(LATEST, EARLIEST), LATEST);
            // opaque: any value is accepted, one that names nothing follows offset_reset_strategy
            String excludeBefore = in.queryString("exclude_before", 0, Integer.MAX_VALUE);
            in.throwIfInvalid();
            PollRequest poll = new PollRequest(player, Cursors.held(excludeBefore), EARLIEST.equals(strategy),
                    pageSize, Duration.ofSeconds(deadline), caller.player().map(player::equals).orElse(false));
            Runnable release = polls.poll(poll, caller, new Reply(response, Vertx.currentContext()));
            response.closeHandler(closed -> release.run()); // the client went away before the answer
            if (response.closed()) {
                release.run();
            }
        } catch (RuntimeException e) {
            answers.failed(response, e);
        }
    }

    /**
     * A request that declares a body over {@code quarkus.http.limits.max-body-size} (a poll reads none). The value is
     * a number: Netty's decoder answers a malformed {@code Content-Length} with a 400 before any route.
     */
    private boolean bodyTooLarge(HttpServerRequest request) {
        String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        return length != null && maxBodyBytes >= 0 && Long.parseLong(length) > maxBodyBytes;
    }

    private static void onContext(Context context, Runnable work) {
        if (context == null || Vertx.currentContext() == context) {
            work.run();
        } else {
            context.runOnContext(ignored -> work.run());
        }
    }

    /** A poll's answer, written on the request's context whichever thread gives it. */
    private final class Reply implements PollAnswer {

        private final HttpServerResponse response;
        private final Context context;

        Reply(HttpServerResponse response, Context context) {
            this.response = response;
            this.context = context;
        }

        @Override
        public void page(NotificationPage page, String cursorReset) {
            onContext(context, () -> {
                if (cursorReset != null) {
                    response.putHeader(CURSOR_RESET, cursorReset);
                }
                answers.json(response, 200, page);
            });
        }

        @Override
        public void failed(Throwable failure) {
            onContext(context, () -> {
                if (failure instanceof PollRefusedException refused) {
                    answers.error(response, refused.status(), refused.code(), refused.getMessage());
                } else {
                    answers.failed(response, failure);
                }
            });
        }
    }
}
