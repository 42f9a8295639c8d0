package io.outpost.history.rest;

import java.util.List;
import java.util.UUID;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;

import org.jboss.resteasy.reactive.RestPath;

import io.outpost.history.service.HistoryRequest;
import io.outpost.history.store.ListingFilter;
import io.outpost.history.service.HistoryService;
import io.outpost.model.Limits;
import io.outpost.model.Permissions;
import io.outpost.model.api.HistoryPage;
import io.outpost.model.event.ConfigTransactionEvent;
import io.outpost.support.http.InputParser;
import io.outpost.support.security.Caller;
import io.outpost.support.security.RequirePermission;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;

/** Spec §4.3 and §4.4: a sandbox's role and match-making profile list history. */
@Path("/v1/history/sandbox/{sandbox_id}")
@Produces(MediaType.APPLICATION_JSON)
@RequirePermission(anyOf = { Permissions.SANDBOX_CONFIG_VIEW, Permissions.SANDBOX_CONFIG_EDIT })
public class HistoryResource {

    private static final List<String> SORT_ORDERS = List.of("asc", "desc");

    private final HistoryService history;
    private final Caller caller;

    public HistoryResource(HistoryService history, Caller caller) {
        this.history = history;
        this.caller = caller;
    }

    @GET
    @Path("/role")
    public Uni<HistoryPage> roles(@RestPath("sandbox_id") String sandboxId, @Context HttpServerRequest request) {
        InputParser in = new InputParser(request);
        UUID sandbox = sandbox(in, sandboxId);
        List<UUID> roleIds = in.queryUuids("role_ids");
        List<Long> legacyIds = in.queryLongs("legacy_role_ids");
        String name = in.queryString("name", Limits.NAME_FILTER_MIN_LENGTH, Limits.NAME_FILTER_MAX_LENGTH);
        String sort = in.queryChoice("sort_order", SORT_ORDERS, "desc");
        String cursor = cursor(in);
        int pageSize = pageSize(in);
        in.throwIfInvalid();
        return history.list(new HistoryRequest(ListingFilter.of(sandbox, ConfigTransactionEvent.ROLE, roleIds,
                legacyIds, name, "asc".equals(sort)), cursor, pageSize));
    }

    @GET
    @Path("/match-making-profile-list")
    public Uni<HistoryPage> profileLists(@RestPath("sandbox_id") String sandboxId, @Context HttpServerRequest request) {
        InputParser in = new InputParser(request);
        UUID sandbox = sandbox(in, sandboxId);
        UUID resourceId = in.queryUuid("resource_id");
        String cursor = cursor(in);
        int pageSize = pageSize(in);
        in.throwIfInvalid();
        ListingFilter filter = ListingFilter.of(sandbox, ConfigTransactionEvent.MATCH_MAKING_PROFILE_LIST,
                resourceId == null ? List.of() : List.of(resourceId), List.of(), null, false);
        return history.list(new HistoryRequest(filter, cursor, pageSize));
    }

    /**
     * The path's sandbox, refused with 403 {@code insufficient_permissions} before anything else is read when the
     * token is bound to other sandboxes (docs/history.md, "Access"): one game's client never reads another's.
     */
    private UUID sandbox(InputParser in, String sandboxId) {
        UUID sandbox = in.pathUuid("sandbox_id", sandboxId);
        if (sandbox != null) {
            caller.requireSandbox(sandbox);
        }
        return sandbox;
    }

    private static String cursor(InputParser in) {
        String cursor = in.queryString("cursor", Limits.CURSOR_MIN_LENGTH, Limits.CURSOR_MAX_LENGTH);
        return cursor == null ? Limits.CURSOR_START : cursor;
    }

    private static int pageSize(InputParser in) {
        return in.queryInt("page_size", Limits.HISTORY_PAGE_SIZE_DEFAULT, Limits.HISTORY_PAGE_SIZE_MIN,
                Limits.HISTORY_PAGE_SIZE_MAX);
    }
}
