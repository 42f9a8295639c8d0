package io.outpost.auth.rest;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.auth.service.ClientValidation;
import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;
import io.outpost.support.http.InvalidInputException;

/**
 * Reads the admin request bodies field by field, so every fault is a 422 at its own location (DESIGN §5): text the
 * store cannot keep is {@code string_pattern_mismatch}, a value outside its alphabet {@code value_error}, a list
 * too long {@code too_long}; {@code json_invalid} only for a body that is not JSON (or not an object) and a value of
 * the wrong JSON type.
 */
final class AdminBodies {

    /**
     * A new client: {@code {"client_id"?, "permissions"?, "player_uuid"?, "sandbox_ids"?}}; {@code sandboxIds} null
     * when it is not bound to sandboxes.
     */
    record NewClient(String clientId, List<String> permissions, UUID playerUuid, List<String> sandboxIds) {
    }

    /**
     * A change of a client ({@code PATCH}): {@code permissions} null when not given; {@code sandboxIds} null with
     * {@code sandboxesGiven} when the binding is removed ({@code "sandbox_ids": null}).
     */
    record ClientChange(List<String> permissions, boolean sandboxesGiven, List<String> sandboxIds) {
    }

    private final ClientValidation validation;
    private final FormOrJsonBody json;

    AdminBodies(ClientValidation validation, ObjectMapper mapper) {
        this.validation = validation;
        this.json = new FormOrJsonBody(mapper);
    }

    /** The body of a creation; throws every fault, {@code faults} (found by the caller) first. */
    NewClient newClient(String contentType, byte[] body, List<ErrorDetail> faults) {
        JsonNode object = json.jsonObject(contentType, body, faults);
        String id = null;
        List<String> permissions = List.of();
        UUID player = null;
        List<String> sandboxes = null;
        if (object != null) {
            id = string(object, "client_id", faults);
            if (id != null) {
                validation.clientId(faults, ErrorDetail.loc("body", "client_id"), id);
            }
            permissions = object.has("permissions") ? permissions(object, faults) : List.of();
            List<Object> playerLoc = ErrorDetail.loc("body", "player_uuid");
            String playerText = string(object, "player_uuid", faults);
            player = Constraints.text(faults, playerLoc, playerText) ? Constraints.uuid(faults, playerLoc, playerText) : null;
            sandboxes = sandboxIds(object, faults);
        }
        throwIfAny(faults);
        return new NewClient(id, permissions, player, sandboxes);
    }

    /**
     * The body of a change: {@code {"permissions"?, "sandbox_ids"?}}, at least one of them; throws every fault,
     * {@code faults} (found by the caller) first.
     */
    ClientChange clientChange(String contentType, byte[] body, List<ErrorDetail> faults) {
        JsonNode object = json.jsonObject(contentType, body, faults);
        List<String> permissions = null;
        boolean sandboxesGiven = false;
        List<String> sandboxes = null;
        if (object != null) {
            if (object.has("permissions")) {
                permissions = permissions(object, faults);
            }
            sandboxesGiven = object.has("sandbox_ids");
            sandboxes = sandboxIds(object, faults);
            if (permissions == null && !sandboxesGiven) {
                faults.add(ErrorDetail.missing(ErrorDetail.loc("body", "sandbox_ids")));
            }
        }
        throwIfAny(faults);
        return new ClientChange(permissions, sandboxesGiven, sandboxes);
    }

    /** {@code sandbox_ids}, canonical; null when absent, null or refused (each entry checked at its own index). */
    private List<String> sandboxIds(JsonNode object, List<ErrorDetail> faults) {
        JsonNode node = object.get("sandbox_ids");
        if (node == null || node.isNull()) {
            return null;
        }
        List<Object> loc = ErrorDetail.loc("body", "sandbox_ids");
        if (!node.isArray()) {
            faults.add(ErrorDetail.jsonInvalid(loc, "Input should be a valid list"));
            return null;
        }
        if (node.size() > ClientValidation.SANDBOXES_MAX) {
            faults.add(ErrorDetail.tooLong(loc, ClientValidation.SANDBOXES_MAX));
            return null;
        }
        List<String> values = new ArrayList<>(node.size());
        boolean typed = true;
        for (int i = 0; i < node.size(); i++) {
            JsonNode item = node.get(i);
            if (!item.isTextual()) {
                faults.add(ErrorDetail.jsonInvalid(ErrorDetail.loc(loc, i), "Input should be a valid string"));
                typed = false;
            }
            values.add(item.asText());
        }
        return typed ? validation.sandboxIds(faults, loc, values) : null;
    }

    /** {@code {"permissions": [...]}} (required); throws every fault, {@code faults} (found by the caller) first. */
    List<String> permissionsBody(String contentType, byte[] body, List<ErrorDetail> faults) {
        JsonNode object = json.jsonObject(contentType, body, faults);
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

    /** Each entry checked at its own index in the body. */
    private List<String> permissions(JsonNode object, List<ErrorDetail> faults) {
        JsonNode node = object.get("permissions");
        List<Object> loc = ErrorDetail.loc("body", "permissions");
        if (!node.isArray()) {
            faults.add(ErrorDetail.jsonInvalid(loc, "Input should be a valid list"));
            return List.of();
        }
        if (node.size() > ClientValidation.PERMISSIONS_MAX) {
            faults.add(ErrorDetail.tooLong(loc, ClientValidation.PERMISSIONS_MAX));
            return List.of();
        }
        List<String> values = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode item = node.get(i);
            if (!item.isTextual()) {
                faults.add(ErrorDetail.jsonInvalid(ErrorDetail.loc(loc, i), "Input should be a valid string"));
            } else {
                validation.permission(faults, ErrorDetail.loc(loc, i), item.asText());
                values.add(item.asText());
            }
        }
        return values.stream().distinct().toList();
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
