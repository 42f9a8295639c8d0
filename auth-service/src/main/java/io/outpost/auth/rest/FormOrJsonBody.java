package io.outpost.auth.rest;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;

import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;
import io.outpost.support.http.PercentDecoding;
import io.outpost.support.json.JsonBinding;
import io.outpost.support.json.JsonFaults;

/**
 * Reads the request bodies of auth-service. The OAuth endpoints (token, revocation, introspection) read one field:
 * JSON is the contract; {@code application/x-www-form-urlencoded} is read too, as standard OAuth2 libraries send it
 * (RFC 6749, 7009, 7662): a form that is not percent-encoded UTF-8 ({@link PercentDecoding}) is unreadable, 422
 * {@code json_invalid} at {@code ["body"]}, and a field given twice is refused (RFC 6749 §3.2). The admin API reads JSON
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
            List<Map.Entry<String, String>> fields = formFields(body);
            if (fields == null) {
                faults.add(ErrorDetail.jsonInvalid(BODY, "Invalid form body: not percent-encoded UTF-8"));
                return null;
            }
            if (unstorableNames(fields, faults)) {
                return null;
            }
            List<String> values = fields.stream().filter(field -> field.getKey().equals(name)).map(Map.Entry::getValue)
                    .toList();
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
            faults.add(JsonFaults.notAnObject(BODY));
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
    private static boolean unstorableNames(List<Map.Entry<String, String>> fields, List<ErrorDetail> faults) {
        int before = faults.size();
        for (Map.Entry<String, String> field : fields) {
            if (!Constraints.storable(field.getKey())) {
                faults.add(ErrorDetail.unstorableKey(BODY, field.getKey()));
            }
        }
        return faults.size() > before;
    }

    /** The fields of a form body in order, names and values decoded; null when one does not decode. */
    private static List<Map.Entry<String, String>> formFields(byte[] body) {
        List<Map.Entry<String, String>> fields = new ArrayList<>();
        for (int start = 0, end; start <= body.length; start = end + 1) {
            end = indexOf(body, (byte) '&', start, body.length);
            if (end == start) {
                continue; // "a=1&&b=2", a trailing "&": no field
            }
            int eq = indexOf(body, (byte) '=', start, end);
            String name = PercentDecoding.decode(body, start, eq);
            String value = eq == end ? "" : PercentDecoding.decode(body, eq + 1, end);
            if (name == null || value == null) {
                return null;
            }
            fields.add(Map.entry(name, value));
        }
        return fields;
    }

    /** The index of {@code b} in {@code bytes[from, to)}, or {@code to}. */
    private static int indexOf(byte[] bytes, byte b, int from, int to) {
        int i = from;
        while (i < to && bytes[i] != b) {
            i++;
        }
        return i;
    }
}
