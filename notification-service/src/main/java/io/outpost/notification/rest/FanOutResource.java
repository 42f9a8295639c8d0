package io.outpost.notification.rest;

import java.util.Map;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.model.Permissions;
import io.outpost.model.error.ErrorDetail;
import io.outpost.notification.service.FanOutService;
import io.outpost.notification.service.PublishReads;
import io.outpost.support.json.JsonBinding;
import io.outpost.support.security.RequirePermission;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;

/**
 * {@code POST /notification/v1/notifications}: one notification for up to 1,000 players, for a backend that may
 * write to any player. 200 {@code {"notification_ids":[…]}} once Kafka has every record, in the order of
 * {@code player_uuids}. Read on a worker thread within {@link PublishReads}' budget, as a create is.
 */
@Path("/notification/v1/notifications")
public class FanOutResource {

    private final FanOutService fanOut;
    private final PublishReads reads;
    private final ObjectMapper json;

    public FanOutResource(FanOutService fanOut, PublishReads reads, ObjectMapper json) {
        this.fanOut = fanOut;
        this.reads = reads;
        this.json = json;
    }

    @POST
    @Blocking
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RequirePermission(anyOf = { Permissions.NOTIFICATION_PLAYER_WRITE })
    public Uni<Response> publish(byte[] body) {
        PublishReads.Share share = reads.enter(body == null ? 0 : body.length);
        try {
            JsonBinding.Read<FanOutRequest> read = JsonBinding.read(json, body, FanOutRequest.class,
                    ErrorDetail.loc("body"));
            FanOutRequest request = read.value() != null ? read.value() : new FanOutRequest(null, null, null);
            return fanOut.publish(request.requestId(), request.playerUuids(), request.notification(), read.faults())
                    .onTermination().invoke(share::release)
                    .map(ids -> Response.ok(Map.of("notification_ids", ids), MediaType.APPLICATION_JSON_TYPE).build());
        } catch (RuntimeException e) {
            share.release();
            throw e;
        }
    }
}
