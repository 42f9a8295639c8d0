package io.outpost.support.http;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Context;

import org.jboss.resteasy.reactive.RestPath;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.model.Limits;
import io.outpost.model.error.ErrorDetail;
import io.outpost.support.json.JsonBinding;
import io.vertx.core.http.HttpServerRequest;

/** A test-only resource that takes every kind of input the services take, parsed the way they parse it. */
@Path("/probe")
public class ProbeResource {

    private final ObjectMapper json;

    public ProbeResource(ObjectMapper json) {
        this.json = json;
    }

    public record Body(@JsonProperty("grant_type") String grantType, Integer count, Map<String, Object> extra,
            com.fasterxml.jackson.databind.JsonNode snapshot) {
    }

    @GET
    @Path("/{sandbox_id}")
    public Map<String, Object> read(@RestPath("sandbox_id") String sandboxId, @Context HttpServerRequest request) {
        InputParser in = new InputParser(request);
        UUID sandbox = in.pathUuid("sandbox_id", sandboxId);
        int size = in.queryInt("max_page_size", Limits.POLL_PAGE_SIZE_DEFAULT, Limits.POLL_PAGE_SIZE_MIN,
                Limits.POLL_PAGE_SIZE_MAX);
        int deadline = in.queryInt("deadline", Limits.DEADLINE_DEFAULT, Limits.DEADLINE_MIN, Limits.DEADLINE_MAX);
        int pageSize = in.queryInt("page_size", Limits.HISTORY_PAGE_SIZE_DEFAULT, Limits.HISTORY_PAGE_SIZE_MIN,
                Limits.HISTORY_PAGE_SIZE_MAX);
        String cursor = in.queryString("cursor", Limits.CURSOR_MIN_LENGTH, Limits.CURSOR_MAX_LENGTH);
        String filter = in.queryString("name", Limits.NAME_FILTER_MIN_LENGTH, Limits.NAME_FILTER_MAX_LENGTH);
        String chosen = in.queryChoice("mode", List.of("latest", "earliest"), "latest");
        List<UUID> roles = in.queryUuids("role_ids");
        List<Long> legacy = in.queryLongs("legacy_role_ids");
        in.header("x-svc-client-addr", Limits.CLIENT_ADDR_MAX);
        in.throwIfInvalid();
        Map<String, Object> parsed = new LinkedHashMap<>();
        parsed.put("sandbox_id", sandbox.toString());
        parsed.put("max_page_size", size);
        parsed.put("deadline", deadline);
        parsed.put("page_size", pageSize);
        parsed.put("cursor", cursor == null ? Limits.CURSOR_START : cursor);
        parsed.put("name", filter);
        parsed.put("mode", chosen);
        parsed.put("role_ids", roles.stream().map(UUID::toString).toList());
        parsed.put("legacy_role_ids", legacy);
        return parsed;
    }

    /** A second method of the template path, which the literal {@code /probe/query} beside it does not have. */
    @DELETE
    @Path("/{sandbox_id}")
    public void forget(@RestPath("sandbox_id") String sandboxId) {
    }

    /** The query as InputParser reads it. */
    @GET
    @Path("/query")
    public Map<String, List<String>> query(@Context HttpServerRequest request) {
        return InputParser.query(request.uri());
    }

    /** Read as every service reads a body: bytes, bound by {@link JsonBinding}. */
    @POST
    public Map<String, Object> write(byte[] bytes) {
        JsonBinding.Read<Body> read = JsonBinding.read(json, bytes, Body.class, ErrorDetail.loc("body"));
        if (!read.faults().isEmpty()) {
            throw new InvalidInputException(read.faults());
        }
        Body body = read.value();
        InputParser in = new InputParser();
        if (body == null) {
            in.add(ErrorDetail.missing(ErrorDetail.loc("body")));
        } else if (body.grantType() == null) {
            in.add(ErrorDetail.missing(ErrorDetail.loc("body", "grant_type")));
        } else if (!body.grantType().equals("client_credentials")) {
            in.add(ErrorDetail.literal(ErrorDetail.loc("body", "grant_type"), "client_credentials"));
        }
        in.throwIfInvalid();
        Map<String, Object> echoed = new LinkedHashMap<>();
        echoed.put("grant_type", body.grantType());
        echoed.put("count", body.count());
        echoed.put("extra", body.extra());
        echoed.put("snapshot", body.snapshot());
        return echoed;
    }

    /** The service failing to read JSON of its own (say, what it stored): nothing the client sent. */
    @GET
    @Path("/failure/json")
    public String failureReadingJson() throws IOException {
        return json.readTree("{\"stored\": tru").toString();
    }

    /** As above, a value of the wrong type: Quarkus's own mapper would answer this subtype 400. */
    @GET
    @Path("/failure/json-type")
    public String failureBindingJson() throws IOException {
        return json.readValue("{\"count\": \"many\"}", Body.class).toString();
    }

    @GET
    @Path("/failure/now")
    public String failure() {
        throw new IllegalStateException("connection string postgresql://secret@db");
    }
}
