package io.outpost.notification.rest;

import java.time.Duration;
import java.util.List;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;

import io.outpost.model.Limits;
import io.outpost.model.Permissions;
import io.outpost.model.api.NotificationPage;
import io.outpost.notification.service.PollRequest;
import io.outpost.notification.service.PollService;
import io.outpost.support.http.InputParser;
import io.outpost.support.security.Caller;
import io.outpost.support.security.RequirePermission;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;

/** Spec §4.2: a player reads their own notifications by long poll. */
@Path("/notification/v1/player/me/stream/notification/lp")
public class LongPollResource {

    static final String LATEST = "latest";
    static final String EARLIEST = "earliest";

    private final PollService polls;
    private final Caller caller;

    public LongPollResource(PollService polls, Caller caller) {
        this.polls = polls;
        this.caller = caller;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RequirePermission(anyOf = { Permissions.NOTIFICATION_PLAYER_ALL, Permissions.NOTIFICATION_PLAYER_READ,
            Permissions.NOTIFICATION_PLAYER_SELF_ALL, Permissions.NOTIFICATION_PLAYER_SELF_READ }, player = true)
    public Uni<NotificationPage> poll(@Context HttpServerRequest request) {
        InputParser in = new InputParser(request);
        int pageSize = in.queryInt("max_page_size", Limits.POLL_PAGE_SIZE_DEFAULT, Limits.POLL_PAGE_SIZE_MIN,
                Limits.POLL_PAGE_SIZE_MAX);
        int deadline = in.queryInt("deadline", Limits.DEADLINE_DEFAULT, Limits.DEADLINE_MIN, Limits.DEADLINE_MAX);
        String strategy = in.queryChoice("offset_reset_strategy", List.of(LATEST, EARLIEST), LATEST);
        // opaque: any value is accepted, one that names nothing follows offset_reset_strategy
        String excludeBefore = in.queryString("exclude_before", 0, Integer.MAX_VALUE);
        in.throwIfInvalid();
        return polls.poll(new PollRequest(caller.player(), excludeBefore == null || excludeBefore.isEmpty()
                ? null : excludeBefore, EARLIEST.equals(strategy), pageSize, Duration.ofSeconds(deadline)));
    }
}
