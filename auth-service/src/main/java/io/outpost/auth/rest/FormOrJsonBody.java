package io.outpost.auth.rest;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;

import io.outpost.model.error.ErrorDetail;

/**
 * Reads one field of the OAuth endpoints' bodies (token, revocation, introspection). JSON is the contract;
 * {@code application/x-www-form-urlencoded} is read too, as standard OAuth2 libraries send it (RFC 6749, 7009,
 * 7662). A missing Content-Type is read as JSON; any other type is refused like unreadable JSON. Other fields are
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
        String mediaType = contentType == null ? "" : contentType.split(";", 2)[0].strip().toLowerCase();
        JsonNode value;
        if (mediaType.equals(FORM)) {
            String text = formValue(body, name);
            value = text == null ? null : TextNode.valueOf(text);
        } else if (mediaType.isEmpty() || mediaType.equals("application/json") || mediaType.endsWith("+json")) {
            JsonNode root;
            try {
                root = json.readTree(body);
            } catch (IOException e) { // JsonProcessingException included
                faults.add(ErrorDetail.jsonInvalid(BODY, "JSON decode error"));
                return null;
            }
            if (root == null || root.isMissingNode()) {
                faults.add(ErrorDetail.missing(BODY));
                return null;
            }
            if (!root.isObject()) {
                faults.add(ErrorDetail.jsonInvalid(BODY, "Input should be a JSON object"));
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

    /** The first value of {@code name} in a form body, or null. */
    private static String formValue(byte[] body, String name) {
        for (String pair : new String(body, StandardCharsets.UTF_8).split("&")) {
            int eq = pair.indexOf('=');
            if (decode(eq < 0 ? pair : pair.substring(0, eq)).equals(name)) {
                return eq < 0 ? "" : decode(pair.substring(eq + 1));
            }
        }
        return null;
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
