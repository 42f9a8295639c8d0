package io.outpost.auth.rest;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;

import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;
import io.outpost.support.json.JsonBinding;
import io.outpost.support.json.JsonFaults;

/**
 * Reads the request bodies of auth-service. The OAuth endpoints (token, revocation, introspection) read one field:
 * JSON is the contract; {@code application/x-www-form-urlencoded} is read too, as standard OAuth2 libraries send it
 * (RFC 6749, 7009, 7662), and a field given twice in a form is refused (RFC 6749 §3.2). The admin API reads JSON
 * only. A missing Content-Type is read as JSON; any other type — a malformed one included
 * ({@link EdgeHeaders} hands it on) — is refused like unreadable JSON, 422 {@code json_invalid} at {@code ["body"]}.
 * JSON is read by service-support's {@link JsonBinding}: every key is checked as it is read (U+0000 or an unpaired
 * surrogate in one is {@code string_pattern_mismatch}, in a form's field names too), a key given twice is refused,
 * and failures are located by {@link JsonFaults}. Other fields are ignored, their values unexamined.
 */
final class FormOrJsonBody {

    private static final List<Object> BODY = ErrorDetail.loc("body");
    private static final String FORM = "application/x-www-form-urlencoded";

    private final ObjectMapper mapper;

    FormOrJsonBody(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** The field (a text node for a form value), or null with its fault added to {@code faults}. */
    JsonNode field(String contentType, byte[] body, String name, List<ErrorDetail> faults) {
        if (body == null || body.length == 0) {
            faults.add(ErrorDetail.missing(BODY));
            return null;
        }
        String mediaType = mediaType(contentType);
        JsonNode value;
        if (mediaType.equals(FORM)) {
            if (unstorableNames(body, faults)) {
                return null;
            }
            List<String> values = formValues(body, name);
            if (values.size() > 1) {
                faults.add(ErrorDetail.givenMoreThanOnce(ErrorDetail.loc("body", name)));
                return null;
            }
            value = values.isEmpty() ? null : TextNode.valueOf(values.get(0));
        } else if (isJson(mediaType)) {
            JsonNode root = object(body, faults);
            if (root == null) {
                return null;
            }
            value = root.get(name);
        } else {
            faults.add(ErrorDetail.jsonInvalid(BODY,
                    "Unsupported content type: send application/json or application/x-www-form-urlencoded"));
            return null;
        }
        if (value == null) {
            faults.add(ErrorDetail.missing(ErrorDetail.loc("body", name)));
        }
        return value;
    }

    /** A JSON-only body (the admin API): the object, or null with its fault added to {@code faults}. */
    JsonNode jsonObject(String contentType, byte[] body, List<ErrorDetail> faults) {
        if (body == null || body.length == 0) {
            faults.add(ErrorDetail.missing(BODY));
            return null;
        }
        if (!isJson(mediaType(contentType))) {
            faults.add(ErrorDetail.jsonInvalid(BODY, "Unsupported content type: send application/json"));
            return null;
        }
        return object(body, faults);
    }

    private JsonNode object(byte[] body, List<ErrorDetail> faults) {
        if (new String(body, StandardCharsets.UTF_8).isBlank()) { // whitespace: no body
            faults.add(ErrorDetail.missing(BODY));
            return null;
        }
        // every key checked as it is read (U+0000 in one the endpoint ignores too), a key given twice refused
        JsonBinding.Read<JsonNode> read = JsonBinding.read(mapper, body, JsonNode.class, BODY);
        if (!read.faults().isEmpty()) {
            faults.addAll(read.faults());
            return null;
        }
        JsonNode root = read.value();
        if (root == null || root.isMissingNode() || root.isNull()) { // whitespace or JSON null: no body
            faults.add(ErrorDetail.missing(BODY));
            return null;
        }
        if (!root.isObject()) {
            faults.add(ErrorDetail.jsonInvalid(BODY, "Input should be a JSON object"));
            return null;
        }
        return root;
    }

    private static String mediaType(String contentType) {
        return contentType == null ? "" : contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    }

    private static boolean isJson(String mediaType) {
        return mediaType.isEmpty() || mediaType.equals("application/json") || mediaType.endsWith("+json");
    }

    /**
     * Refuses each field name of a form that holds U+0000 or an unpaired surrogate (DESIGN §5: anywhere, keys
     * included — also the name of a field the endpoint ignores), as a JSON key is refused; true when one did.
     */
    private static boolean unstorableNames(byte[] body, List<ErrorDetail> faults) {
        int before = faults.size();
        for (String pair : new String(body, StandardCharsets.UTF_8).split("&")) {
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq));
            if (!Constraints.storable(name)) {
                faults.add(ErrorDetail.unstorableKey(BODY, name));
            }
        }
        return faults.size() > before;
    }

    /** Every value of {@code name} in a form body, in order. */
    private static List<String> formValues(byte[] body, String name) {
        List<String> values = new ArrayList<>(1);
        for (String pair : new String(body, StandardCharsets.UTF_8).split("&")) {
            int eq = pair.indexOf('=');
            if (decode(eq < 0 ? pair : pair.substring(0, eq)).equals(name)) {
                values.add(eq < 0 ? "" : decode(pair.substring(eq + 1)));
            }
        }
        return values;
    }

    /** Form-url-decodes text; malformed percent-encoding is kept as it is. */
    static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return text;
        }
    }
}
