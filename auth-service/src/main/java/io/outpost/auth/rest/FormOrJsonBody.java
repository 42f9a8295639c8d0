package io.outpost.auth.rest;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;

import io.outpost.model.error.ErrorDetail;

/**
 * Checks the token request body (spec §4.1): {@code grant_type} must be the string {@code client_credentials}.
 * JSON is the contract; {@code application/x-www-form-urlencoded} is read too, for standard OAuth2 libraries. A
 * missing Content-Type is read as JSON; any other type is refused like unreadable JSON. Other fields are ignored.
 */
final class GrantTypeReader {

    static final String CLIENT_CREDENTIALS = "client_credentials";
    private static final List<Object> BODY = ErrorDetail.loc("body");
    private static final List<Object> GRANT_TYPE = ErrorDetail.loc("body", "grant_type");
    private static final String FORM = "application/x-www-form-urlencoded";

    private final ObjectReader json;

    GrantTypeReader(ObjectMapper mapper) {
        this.json = mapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    /** Every fault of the body; empty when the grant is client_credentials. */
    List<ErrorDetail> check(String contentType, byte[] body) {
        List<ErrorDetail> faults = new ArrayList<>(1);
        if (body == null || body.length == 0) {
            faults.add(ErrorDetail.missing(BODY));
            return faults;
        }
        String mediaType = contentType == null ? "" : contentType.split(";", 2)[0].strip().toLowerCase();
        if (mediaType.equals(FORM)) {
            String grant = formValue(body);
            if (grant == null) {
                faults.add(ErrorDetail.missing(GRANT_TYPE));
            } else {
                checkValue(faults, grant);
            }
        } else if (mediaType.isEmpty() || mediaType.equals("application/json") || mediaType.endsWith("+json")) {
            checkJson(faults, body);
        } else {
            faults.add(ErrorDetail.jsonInvalid(BODY,
                    "Unsupported content type: send application/json or application/x-www-form-urlencoded"));
        }
        return faults;
    }

    private void checkJson(List<ErrorDetail> faults, byte[] body) {
        JsonNode root;
        try {
            root = json.readTree(body);
        } catch (IOException e) { // JsonProcessingException included
            faults.add(ErrorDetail.jsonInvalid(BODY, "JSON decode error"));
            return;
        }
        if (root == null || root.isMissingNode()) {
            faults.add(ErrorDetail.missing(BODY));
        } else if (!root.isObject()) {
            faults.add(ErrorDetail.jsonInvalid(BODY, "Input should be a JSON object"));
        } else {
            JsonNode grant = root.get("grant_type");
            if (grant == null) {
                faults.add(ErrorDetail.missing(GRANT_TYPE));
            } else {
                // a number, null, array or object is as wrong as another string
                checkValue(faults, grant.isTextual() ? grant.asText() : null);
            }
        }
    }

    private static void checkValue(List<ErrorDetail> faults, String value) {
        if (!CLIENT_CREDENTIALS.equals(value)) {
            faults.add(ErrorDetail.literal(GRANT_TYPE, CLIENT_CREDENTIALS));
        }
    }

    /** The first {@code grant_type} of a form body, or null. */
    private static String formValue(byte[] body) {
        for (String pair : new String(body, StandardCharsets.UTF_8).split("&")) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            if (decode(name).equals("grant_type")) {
                return eq < 0 ? "" : decode(pair.substring(eq + 1));
            }
        }
        return null;
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return text;
        }
    }
}
