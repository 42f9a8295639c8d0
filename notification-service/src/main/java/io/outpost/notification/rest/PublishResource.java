package io.outpost.notification.rest;

import java.util.List;
import java.util.UUID;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.model.Permissions;
import io.outpost.model.error.AuthErrorCode;
import io.outpost.model.error.ErrorDetail;
import io.outpost.notification.service.PublishReads;
import io.outpost.notification.service.PublishService;
import io.outpost.support.http.InputParser;
import io.outpost.support.json.JsonBinding;
import io.outpost.support.security.AuthRefusedException;
import io.outpost.support.security.Caller;
import io.outpost.support.security.PermissionMatcher;
import io.outpost.support.security.RequirePermission;
import io.outpost.support.security.VerifiedToken;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;

/**
 * DESIGN §4: publish notifications to a player over HTTP — {@code {player_uuid}}, or {@code me}: the token's own
 * player. Any player needs {@code notification:player:write} (or a wildcard covering it, such as
 * {@code notification:player:*}); the token's own player {@code notification:player:self:write} or
 * {@code …:self:*} too, as in the vendor's API. They go to Kafka like any producer's, and reach the player through
 * ingest; the answer (202) carries the ids they will have. An id the player already has with other content is
 * refused (409 {@code notification_id_conflict}). The body is read here rather than by
 * the framework, so that every value of the wrong JSON type in it is reported, not only the first (DESIGN §5) —
 * on a worker thread, never an event loop (reading and checking a 1 MiB body of tiny values takes tens of
 * milliseconds, in which an event loop would answer no held poll), within {@link PublishReads}' heap budget.
 */
@Path("/notification/v1/player/{player_uuid}/notification")
public class PublishResource {

    /** The path segment naming the token's own player, as in the vendor's API. */
    static final String ME = "me";

    private final PublishService publishing;
    private final PublishReads reads;
    private final Caller caller;
    private final ObjectMapper json;

    public PublishResource(PublishService publishing, PublishReads reads, Caller caller, ObjectMapper json) {
        this.publishing = publishing;
        this.reads = reads;
        this.caller = caller;
        this.json = json;
    }

    @POST
    @Blocking
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RequirePermission(anyOf = { Permissions.NOTIFICATION_PLAYER_WRITE, Permissions.NOTIFICATION_PLAYER_SELF_WRITE })
    public Uni<Response> publish(@PathParam("player_uuid") String playerUuid, byte[] body) {
        InputParser in = new InputParser();
        VerifiedToken token = caller.token();
        UUID player = ME.equals(playerUuid) ? ownPlayer(token) : in.pathUuid("player_uuid", playerUuid);
        authorize(token, player);
        in.throwIfInvalid();
        PublishReads.Share share = reads.enter(body == null ? 0 : body.length);
        try {
            JsonBinding.Read<PublishRequest> read =
                    JsonBinding.read(json, body, PublishRequest.class, ErrorDetail.loc("body"));
            return publishing.publish(player, read.value() == null ? null : read.value().notifications(), read.faults())
                    .onTermination().invoke(share::release)
                    .map(ids -> Response.accepted(new PublishResponse(ids)).build());
        } catch (RuntimeException e) {
            share.release();
            throw e;
        }
    }

    /** {@code me}: the token's own player; a token bound to none has no "me" (403 {@code invalid_token_claims}). */
    private static UUID ownPlayer(VerifiedToken token) {
        return token.player().orElseThrow(() -> new AuthRefusedException(AuthErrorCode.INVALID_TOKEN_CLAIMS,
                "The token is not bound to a player"));
    }

    /** The self permissions write only to the token's own player. */
    private static void authorize(VerifiedToken token, UUID player) {
        if (PermissionMatcher.grantsAny(token.permissions(), List.of(Permissions.NOTIFICATION_PLAYER_WRITE))) {
            return;
        }
        if (player == null || !token.player().map(player::equals).orElse(false)) {
            throw new AuthRefusedException(AuthErrorCode.INSUFFICIENT_PERMISSIONS,
                    "notification:player:self:write publishes only to the token's own player");
        }
    }
}
