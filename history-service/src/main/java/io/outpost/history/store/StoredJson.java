package io.outpost.history.store;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
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
     * Numbers as PostgreSQL writes them: {@code 1e400} comes back as its 401 digits, and numeric holds up to
     * 131,072 digits before the point and 16,383 after. Jackson's default bound (1,000 characters) made every page
     * holding a longer one fail.
     */
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNumberLength(Integer.MAX_VALUE).build()).build();

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
