package io.outpost.auth.rest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.auth.config.AuthConfig;
import io.outpost.auth.service.ClientAdmin;
import io.outpost.auth.service.ClientSnapshot;
import io.outpost.auth.service.ClientValidation;
import io.outpost.model.Permissions;
import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;
import io.outpost.model.error.ErrorResponse;
import io.outpost.support.http.ErrorMappers;
import io.outpost.support.http.InputParser;
import io.outpost.support.http.InvalidInputException;
import io.outpost.support.security.Caller;
import io.outpost.support.security.RequirePermission;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;

/**
 * Client administration under {@code /users/v1/admin/clients}, for bearer tokens holding
 * {@value Permissions#AUTH_CLIENTS_ADMIN} (DESIGN §2). See docs/auth.md for the calls and their bodies.
 */
@Path(AdminClientsResource.PATH)
@Produces(MediaType.APPLICATION_JSON)
@RequirePermission(anyOf = Permissions.AUTH_CLIENTS_ADMIN)
public class AdminClientsResource {

    static final String PATH = "/users/v1/admin/clients";
    static final String CLIENT_EXISTS = "client_exists";
    private static final List<Object> ID = ErrorDetail.loc("path", "id");

    /** Longest grace period a secret rotation may ask for (30 days). */
    static final int GRACE_MAX_SECONDS = 30 * 24 * 3600;

    private final ClientAdmin admin;
    private final AdminBodies bodies;
    private final Caller caller;
    private final Duration defaultGrace;

    public AdminClientsResource(ClientAdmin admin, ClientValidation validation, Caller caller, AuthConfig config,
            ObjectMapper mapper) {
        this.admin = admin;
        this.bodies = new AdminBodies(validation, mapper);
        this.caller = caller;
        this.defaultGrace = config.secrets().rotationGrace();
    }

    /**
     * Bodies of any content type are read here, not by the framework, so that one it does not read is a 422 like
     * unreadable JSON (DESIGN §5), not a 415. {@code Location} is a relative reference (RFC 9110 §10.2.2) built from
     * the id alone: the framework would complete it with a host taken from the request's forwarded headers.
     */
    @POST
    @Consumes(MediaType.WILDCARD)
    public Uni<Response> create(@Context HttpServerRequest request, byte[] body) {
        AdminBodies.NewClient wanted = bodies.newClient(request.getHeader(HttpHeaders.CONTENT_TYPE), body,
                new ArrayList<>());
        return admin.create(actor(), wanted.clientId(), wanted.permissions(), wanted.playerUuid(), wanted.sandboxIds())
                .map(created -> ClientAuthentication.noStore(Response.status(Response.Status.CREATED)
                        .header(HttpHeaders.LOCATION, PATH + "/" + created.client().clientId())
                        .entity(AdminClientViews.Created.of(created.client(), created.secret()))));
    }

    @GET
    public Uni<AdminClientViews.Page> list(@Context HttpServerRequest request) {
        InputParser in = new InputParser(request);
        int limit = in.queryInt("limit", 100, 1, 1000);
        String after = in.queryString("after", 1, ClientValidation.CLIENT_ID_MAX);
        in.throwIfInvalid();
        return admin.list(after, limit + 1).map(clients -> {
            List<AdminClientViews.Client> page = clients.stream().limit(limit).map(AdminClientViews.Client::of).toList();
            return new AdminClientViews.Page(page, clients.size() > limit ? page.get(limit - 1).clientId() : null);
        });
    }

    @GET
    @Path("/{id}")
    public Uni<Response> get(@PathParam("id") String id) {
        return admin.get(pathId(id)).map(AdminClientsResource::clientOrNotFound);
    }

    @POST
    @Path("/{id}/disable")
    public Uni<Response> disable(@PathParam("id") String id) {
        return admin.setEnabled(actor(), pathId(id), false).map(AdminClientsResource::clientOrNotFound);
    }

    @POST
    @Path("/{id}/enable")
    public Uni<Response> enable(@PathParam("id") String id) {
        return admin.setEnabled(actor(), pathId(id), true).map(AdminClientsResource::clientOrNotFound);
    }

    @PUT
    @Path("/{id}/permissions")
    @Consumes(MediaType.WILDCARD)
    public Uni<Response> setPermissions(@PathParam("id") String id, @Context HttpServerRequest request, byte[] body) {
        List<String> permissions = bodies.permissionsBody(request.getHeader(HttpHeaders.CONTENT_TYPE), body, idFaults(id));
        return admin.setPermissions(actor(), id, permissions).map(AdminClientsResource::clientOrNotFound);
    }

    /**
     * Changes the fields given ({@code permissions}, {@code sandbox_ids}); a change of the sandbox binding revokes
     * every token issued so far, since each carries the binding it was issued with.
     */
    @PATCH
    @Path("/{id}")
    @Consumes(MediaType.WILDCARD)
    public Uni<Response> change(@PathParam("id") String id, @Context HttpServerRequest request, byte[] body) {
        AdminBodies.ClientChange wanted = bodies.clientChange(request.getHeader(HttpHeaders.CONTENT_TYPE), body,
                idFaults(id));
        return admin.change(actor(), id, wanted.permissions(), wanted.sandboxesGiven(), wanted.sandboxIds())
                .map(AdminClientsResource::clientOrNotFound);
    }

    /**
     * A new secret; the old one keeps working for {@code grace_seconds} (default {@code secrets.rotation-grace},
     * 0 stops it at once), and every token issued so far is revoked.
     */
    @POST
    @Path("/{id}/secret")
    public Uni<Response> rotateSecret(@PathParam("id") String id, @Context HttpServerRequest request) {
        InputParser in = new InputParser(request);
        in.addAll(idFaults(id));
        int grace = in.queryInt("grace_seconds", (int) defaultGrace.toSeconds(), 0, GRACE_MAX_SECONDS);
        in.throwIfInvalid();
        return admin.rotateSecret(actor(), id, Duration.ofSeconds(grace)).map(rotated -> rotated == null ? notFound()
                : ClientAuthentication.noStore(Response.ok(new AdminClientViews.Secret(rotated.client().clientId(),
                        rotated.secret(), rotated.client().previousSecretExpiresAt()))));
    }

    /** The previous secret stops working at once, whatever was left of its grace; every token so far is revoked. */
    @POST
    @Path("/{id}/end-previous-secret")
    public Uni<Response> endPreviousSecret(@PathParam("id") String id) {
        return admin.endPreviousSecret(actor(), pathId(id)).map(AdminClientsResource::clientOrNotFound);
    }

    /** Revokes every token issued to the client so far (it may ask for new ones). */
    @POST
    @Path("/{id}/revoke-tokens")
    public Uni<Response> revokeTokens(@PathParam("id") String id) {
        return admin.revokeTokens(actor(), pathId(id)).map(AdminClientsResource::clientOrNotFound);
    }

    /**
     * The path's client id, refused with 422 {@code string_pattern_mismatch} when it holds a character PostgreSQL
     * cannot keep (docs/architecture.md), before any query or KDF.
     */
    private static String pathId(String id) {
        List<ErrorDetail> faults = idFaults(id);
        if (!faults.isEmpty()) {
            throw new InvalidInputException(faults);
        }
        return id;
    }

    /** The fault of the path's client id, if any (a list to add to). */
    private static List<ErrorDetail> idFaults(String id) {
        List<ErrorDetail> faults = new ArrayList<>(1);
        Constraints.text(faults, ID, id);
        return faults;
    }

    /** The administrator making the call (the client of the presented token), for the audit trail. */
    private String actor() {
        return caller.token().clientId();
    }

    @ServerExceptionMapper
    public Response clientExists(ClientAdmin.ClientExistsException e) {
        return ErrorMappers.error(Response.Status.CONFLICT, CLIENT_EXISTS, "A client with this id exists");
    }

    private static Response clientOrNotFound(ClientSnapshot client) {
        return client == null ? notFound() : Response.ok(AdminClientViews.Client.of(client)).build();
    }

    private static Response notFound() {
        return ErrorMappers.error(Response.Status.NOT_FOUND, ErrorResponse.NOT_FOUND, "No such client");
    }
}
