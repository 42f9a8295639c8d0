package io.outpost.support.security;

import java.util.Map;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import io.outpost.model.Permissions;
import io.smallrye.mutiny.Uni;

/** Test-only endpoints guarded the way the services guard theirs. */
@Path("/guarded")
public class GuardedProbeResource {

    private final Caller caller;

    public GuardedProbeResource(Caller caller) {
        this.caller = caller;
    }

    @GET
    @Path("/player")
    @RequirePermission(anyOf = { Permissions.NOTIFICATION_PLAYER_ALL, Permissions.NOTIFICATION_PLAYER_READ,
            Permissions.NOTIFICATION_PLAYER_SELF_ALL, Permissions.NOTIFICATION_PLAYER_SELF_READ }, player = true)
    public Map<String, Object> player() {
        return Map.of("player", caller.player().toString(), "client_id", caller.token().clientId());
    }

    /** The same check on an endpoint served on the event loop (a {@code Uni}, as history's and the publish endpoint are). */
    @GET
    @Path("/player-on-event-loop")
    @RequirePermission(anyOf = { Permissions.NOTIFICATION_PLAYER_ALL, Permissions.NOTIFICATION_PLAYER_READ,
            Permissions.NOTIFICATION_PLAYER_SELF_ALL, Permissions.NOTIFICATION_PLAYER_SELF_READ }, player = true)
    public Uni<Map<String, Object>> playerOnEventLoop() {
        return Uni.createFrom().item(this::player);
    }

    @GET
    @Path("/sandbox")
    @RequirePermission(anyOf = { Permissions.SANDBOX_CONFIG_VIEW, Permissions.SANDBOX_CONFIG_EDIT })
    public Map<String, Object> sandbox() {
        return Map.of("client_id", caller.token().clientId());
    }

    @GET
    @Path("/open")
    public String open() {
        return "open";
    }
}
