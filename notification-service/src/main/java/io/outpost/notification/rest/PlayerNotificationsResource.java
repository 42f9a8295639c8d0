package io.outpost.notification.rest;

import java.util.List;
import java.util.UUID;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.model.Limits;
import io.outpost.model.Permissions;
import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;
import io.outpost.model.error.ErrorResponse;
import io.outpost.model.event.NotificationEvent;
import io.outpost.notification.service.InboxService;
import io.outpost.notification.service.PublishReads;
import io.outpost.notification.service.PublishService;
import io.outpost.support.http.ErrorMappers;
import io.outpost.support.http.InputParser;
import io.outpost.support.json.JsonBinding;
import io.outpost.support.security.Caller;
import io.outpost.support.security.RequirePermission;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;

/**
 * A player's notifications (docs/notifications.md, "The API"): the page newest first with its {@code ETag}, one
 * notification, create, delete, the read marker — under {@code {player}}, {@code me} or a player's uuid
 * ({@link PlayerPaths}). Thin: the input is read here, the rest is {@link InboxService}'s and
 * {@link PublishService}'s. A create goes to Kafka like any producer's and reaches the player through ingest.
 */
@Path("/notification/v1/player/{player_uuid}/notification")
public class PlayerNotificationsResource {

    private final PublishService publishing;
    private final PublishReads reads;
    private final InboxService inbox;
    private final Caller caller;
    private final ObjectMapper json;

    public PlayerNotificationsResource(PublishService publishing, PublishReads reads, InboxService inbox,
            Caller caller, ObjectMapper json) {
        this.publishing = publishing;
        this.reads = reads;
        this.inbox = inbox;
        this.caller = caller;
        this.json = json;
    }

    /**
     * A page newest first; 304 with no body when {@code If-None-Match} names its {@code ETag}. One query.
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RequirePermission(anyOf = { Permissions.NOTIFICATION_PLAYER_ALL, Permissions.NOTIFICATION_PLAYER_READ,
            Permissions.NOTIFICATION_PLAYER_SELF_ALL, Permissions.NOTIFICATION_PLAYER_SELF_READ })
    public Uni<Response> page(@PathParam("player_uuid") String playerUuid, @Context HttpServerRequest request) {
        InputParser in = new InputParser(request);
        UUID player = PlayerPaths.forReading(caller.token(), playerUuid, in);
        int pageSize = in.queryInt("page_size", Limits.INBOX_PAGE_SIZE_DEFAULT, Limits.INBOX_PAGE_SIZE_MIN,
                Limits.INBOX_PAGE_SIZE_MAX);
        String startAt = emptyAsAbsent(in.queryString("start_at", 0, Integer.MAX_VALUE));
        String excludeBefore = emptyAsAbsent(in.queryString("exclude_before", 0, Integer.MAX_VALUE));
        String ifNoneMatch = in.header(HttpHeaders.IF_NONE_MATCH, Integer.MAX_VALUE);
        in.throwIfInvalid();
        return inbox.page(player, startAt, excludeBefore, pageSize).map(found -> {
            Response.ResponseBuilder answer = EntityTags.matches(ifNoneMatch, found.etag())
                    ? Response.notModified() : Response.ok(found.page(), MediaType.APPLICATION_JSON_TYPE);
            return answer.header(HttpHeaders.ETAG, found.etag()).header(HttpHeaders.CACHE_CONTROL, "private, no-cache")
                    .build();
        });
    }

    /** One notification; 404 {@code resource_not_found} when the player has none it may read so named. */
    @GET
    @Path("/{notification_id}")
    @Produces(MediaType.APPLICATION_JSON)
    @RequirePermission(anyOf = { Permissions.NOTIFICATION_PLAYER_ALL, Permissions.NOTIFICATION_PLAYER_READ,
            Permissions.NOTIFICATION_PLAYER_SELF_ALL, Permissions.NOTIFICATION_PLAYER_SELF_READ })
    public Uni<Response> byId(@PathParam("player_uuid") String playerUuid,
            @PathParam("notification_id") String notificationId) {
        InputParser in = new InputParser();
        UUID player = PlayerPaths.forReading(caller.token(), playerUuid, in);
        notificationId(in, notificationId);
        in.throwIfInvalid();
        return inbox.byId(player, notificationId).map(found -> found == null ? notFound(notificationId)
                : Response.ok(found, MediaType.APPLICATION_JSON_TYPE).build());
    }

    /**
     * Creates notifications for the player (DESIGN §4): 200 once Kafka has them all, {@code notification_id} the
     * last, {@code notification_ids} each in order. The body is read here rather than by the framework, so that
     * every value of the wrong JSON type in it is reported, not only the first (DESIGN §5) — on a worker thread,
     * within {@link PublishReads}' heap budget.
     */
    @POST
    @Blocking
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RequirePermission(anyOf = { Permissions.NOTIFICATION_PLAYER_WRITE, Permissions.NOTIFICATION_PLAYER_SELF_WRITE })
    public Uni<Response> create(@PathParam("player_uuid") String playerUuid, byte[] body) {
        InputParser in = new InputParser();
        UUID player = PlayerPaths.forWriting(caller.token(), playerUuid, in);
        in.throwIfInvalid();
        PublishReads.Share share = reads.enter(body == null ? 0 : body.length);
        try {
            JsonBinding.Read<PublishRequest> read =
                    JsonBinding.read(json, body, PublishRequest.class, ErrorDetail.loc("body"));
            List<NotificationEvent> entries = read.value() == null ? null : read.value().notifications();
            return publishing.publish(player, entries, read.faults())
                    .onTermination().invoke(share::release)
                    .map(ids -> Response.ok(PublishResponse.of(ids), MediaType.APPLICATION_JSON_TYPE).build());
        } catch (RuntimeException e) {
            share.release();
            throw e;
        }
    }

    /** Deletes a notification: it is never delivered nor listed again. 204; 404 when the player has none so named. */
    @DELETE
    @Path("/{notification_id}")
    @Produces(MediaType.APPLICATION_JSON)
    @RequirePermission(anyOf = { Permissions.NOTIFICATION_PLAYER_WRITE, Permissions.NOTIFICATION_PLAYER_SELF_WRITE })
    public Uni<Response> delete(@PathParam("player_uuid") String playerUuid,
            @PathParam("notification_id") String notificationId) {
        InputParser in = new InputParser();
        UUID player = PlayerPaths.forWriting(caller.token(), playerUuid, in);
        notificationId(in, notificationId);
        in.throwIfInvalid();
        return inbox.delete(player, notificationId)
                .map(deleted -> deleted ? Response.noContent().build() : notFound(notificationId));
    }

    /** Moves the player's read marker to a notification (never back). 204; 404 when the player has none so named. */
    @PUT
    @Path("/read-marker")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RequirePermission(anyOf = { Permissions.NOTIFICATION_PLAYER_WRITE, Permissions.NOTIFICATION_PLAYER_SELF_WRITE })
    public Uni<Response> markRead(@PathParam("player_uuid") String playerUuid, byte[] body) {
        InputParser in = new InputParser();
        UUID player = PlayerPaths.forWriting(caller.token(), playerUuid, in);
        JsonBinding.Read<ReadMarker> read = JsonBinding.read(json, body, ReadMarker.class, ErrorDetail.loc("body"));
        in.addAll(read.faults());
        if (read.faults().isEmpty()) {
            in.addAll(ReadMarker.validate(read.value()));
        }
        in.throwIfInvalid();
        String notificationId = read.value().notificationId();
        return inbox.markRead(player, notificationId)
                .map(marked -> marked ? Response.noContent().build() : notFound(notificationId));
    }

    /** A {@code {notification_id}} of the path: 1..128 characters the store can keep (422 otherwise). */
    private static void notificationId(InputParser in, String notificationId) {
        List<ErrorDetail> faults = new java.util.ArrayList<>(1);
        Constraints.text(faults, ErrorDetail.loc("path", "notification_id"), notificationId, 1,
                NotificationEvent.MAX_NOTIFICATION_ID);
        in.addAll(faults);
    }

    private static Response notFound(String notificationId) {
        return ErrorMappers.error(Response.Status.NOT_FOUND, ErrorResponse.RESOURCE_NOT_FOUND,
                "The player has no notification " + notificationId);
    }

    private static String emptyAsAbsent(String value) {
        return value == null || value.isEmpty() ? null : value;
    }
}
