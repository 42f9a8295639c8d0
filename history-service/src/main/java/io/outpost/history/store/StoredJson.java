package io.outpost.history.store;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonSerializable;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.jsontype.TypeSerializer;

/**
 * A snapshot as PostgreSQL returns it ({@code jsonb::text}, which puts a space after every {@code :} and
 * {@code ,}), written into a response compactly by streaming its tokens: no tree is built, and numbers are
 * copied as their text, so {@code 1.10} stays {@code 1.10}.
 */
public record StoredJson(String text) implements JsonSerializable {

    /**
     * Jackson's default bounds: a number PostgreSQL writes out ({@code 1e400} as its 401 digits) takes at most
     * {@value JsonbText#MAX_NUMBER_CHARS} characters, Jackson's bound too — the ingest refuses a longer one, and a
     * row stored before that holding one is not read (V9).
     */
    private static final JsonFactory JSON = new JsonFactory();

    @Override
    public void serialize(JsonGenerator out, SerializerProvider serializers) throws IOException {
        try (JsonParser in = JSON.createParser(text)) {
            for (JsonToken token = in.nextToken(); token != null; token = in.nextToken()) {
                if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
                    out.writeNumber(in.getText());
                } else {
                    out.copyCurrentEvent(in);
                }
            }
        }
    }

    @Override
    public void serializeWithType(JsonGenerator out, SerializerProvider serializers, TypeSerializer typeSer)
            throws IOException {
        serialize(out, serializers);
    }
}
