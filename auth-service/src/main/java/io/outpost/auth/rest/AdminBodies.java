package io.outpost.auth.rest;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;

import io.outpost.auth.service.ClientValidation;
import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;
import io.outpost.support.http.InvalidInputException;

/** Reads the admin request bodies field by field, so every fault is a 422 at its own location (DESIGN §5). */
final class AdminBodies {

    /** A new client: {@code {"client_id"?, "permissions"?, "player_uuid"?}}. */
    record NewClient(String clientId, List<String> permissions, UUID playerUuid) {
    }

    private final ClientValidation validation;

    AdminBodies(ClientValidation validation) {
        this.validation = validation;
    }

    NewClient newClient(JsonNode body) {
        List<ErrorDetail> faults = new ArrayList<>();
        JsonNode object = object(body, faults);
        String id = null;
        List<String> permissions = List.of();
        UUID player = null;
        if (object != null) {
            id = string(object, "client_id", faults);
            if (id != null) {
                validation.clientId(faults, ErrorDetail.loc("body", "client_id"), id);
            }
            permissions = object.has("permissions") ? permissions(object, faults) : List.of();
            String playerText = string(object, "player_uuid", faults);
            player = Constraints.uuid(faults, ErrorDetail.loc("body", "player_uuid"), playerText);
        }
        throwIfAny(faults);
        return new NewClient(id, permissions, player);
    }

    /** {@code {"permissions": [...]}} (required). */
    List<String> permissionsBody(JsonNode body) {
        List<ErrorDetail> faults = new ArrayList<>();
        JsonNode object = object(body, faults);
        List<String> permissions = List.of();
        if (object != null) {
            if (!object.has("permissions")) {
                faults.add(ErrorDetail.missing(ErrorDetail.loc("body", "permissions")));
            } else {
                permissions = permissions(object, faults);
            }
        }
        throwIfAny(faults);
        return permissions;
    }

    private List<String> permissions(JsonNode object, List<ErrorDetail> faults) {
        JsonNode node = object.get("permissions");
        List<Object> loc = ErrorDetail.loc("body", "permissions");
        if (!node.isArray()) {
            faults.add(ErrorDetail.jsonInvalid(loc, "Input should be a valid list"));
            return List.of();
        }
        List<String> values = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode item = node.get(i);
            if (!item.isTextual()) {
                faults.add(ErrorDetail.jsonInvalid(ErrorDetail.loc(loc, i), "Input should be a valid string"));
            } else {
                values.add(item.asText());
            }
        }
        validation.permissions(faults, loc, values);
        return values.stream().distinct().toList();
    }

    private static JsonNode object(JsonNode body, List<ErrorDetail> faults) {
        if (body == null || body.isMissingNode() || body.isNull()) {
            faults.add(ErrorDetail.missing(ErrorDetail.loc("body")));
            return null;
        }
        if (!body.isObject()) {
            faults.add(ErrorDetail.jsonInvalid(ErrorDetail.loc("body"), "Input should be a JSON object"));
            return null;
        }
        return body;
    }

    private static String string(JsonNode object, String field, List<ErrorDetail> faults) {
        JsonNode node = object.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual()) {
            faults.add(ErrorDetail.jsonInvalid(ErrorDetail.loc("body", field), "Input should be a valid string"));
            return null;
        }
        return node.asText();
    }

    private static void throwIfAny(List<ErrorDetail> faults) {
        if (!faults.isEmpty()) {
            throw new InvalidInputException(faults);
        }
    }
}
