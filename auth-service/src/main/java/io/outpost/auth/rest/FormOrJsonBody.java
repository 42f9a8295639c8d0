package io.outpost.auth.rest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.TextNode;

import io.outpost.model.error.ErrorDetail;
import io.outpost.support.json.JsonFaults;

/**
 * Reads the request bodies of auth-service. The OAuth endpoints (token, revocation, introspection) read one field:
 * JSON is the contract; {@code application/x-www-form-urlencoded} is read too, as standard OAuth2 libraries send it
 * (RFC 6749, 7009, 7662), and a field given twice in a form is refused (RFC 6749 §3.2). The admin API reads JSON
 * only. A missing Content-Type is read as JSON; any other type — a malformed one included
 * ({@link EdgeHeaders} hands it on) — is refused like unreadable JSON, 422 {@code json_invalid} at {@code ["body"]}.
 * JSON failures are located by service-support's {@link JsonFaults}, as the framework's own are. Other fields are
 * ignored.
 */
final class FormOrJsonBody {

    private static final List<Object> BODY = ErrorDetail.loc("body");
    private static final String FORM = "application/x-www-form-urlencoded";

    private final ObjectReader json;

    FormOrJsonBody(ObjectMapper mapper) {
        this.json = mapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
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
        JsonNode root;
        try {
            root = json.readTree(body);
        } catch (JsonProcessingException e) {
            faults.add(JsonFaults.locate(e, BODY));
            return null;
        } catch (IOException e) { // reading from memory: not expected
            throw new UncheckedIOException(e);
        }
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
