package io.outpost.model;

import java.io.IOException;
import java.io.StringWriter;
import java.util.Objects;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;

/**
 * A JSON object passed through as its text ({@code custom_data}): read from a document by copying its tokens —
 * keys in their order, numbers exactly as written ({@code 1.10}, {@code 1e400}, {@code -0}), strings re-escaped,
 * whitespace dropped — and written into a document as it is. It is never bound to maps, lists and boxed numbers,
 * so a record on its way from Kafka to the store and to a held poll, or a row read for a poll, costs one string.
 *
 * <p>Reading takes what the document's parser allows (a key given twice, nesting past its limit and anything
 * that is not an object fail the read, as they failed for a map); what the store cannot keep (U+0000, an unpaired
 * surrogate, nesting past 128 levels) is left for validation to find ({@code Constraints.json}). The text given
 * to the constructor must be one JSON object: it is written out unchecked.
 */
@JsonDeserialize(using = RawJsonObject.Reader.class)
@JsonSerialize(using = RawJsonObject.Writer.class)
public record RawJsonObject(String json) {

    /** Generates the copied text (character-based: an unpaired surrogate survives, for validation to refuse). */
    private static final JsonFactory TEXT = new JsonFactory();

    public RawJsonObject {
        Objects.requireNonNull(json, "json");
    }

    @Override
    public String toString() {
        return json;
    }

    /** Reads the object at the parser's current token by copying its tokens; anything else is the wrong type. */
    public static final class Reader extends StdDeserializer<RawJsonObject> {

        public Reader() {
            super(RawJsonObject.class);
        }

        @Override
        public RawJsonObject deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            if (!p.hasToken(JsonToken.START_OBJECT)) {
                return (RawJsonObject) ctxt.handleUnexpectedToken(RawJsonObject.class, p);
            }
            StringWriter out = new StringWriter(64);
            try (JsonGenerator copy = TEXT.createGenerator(out)) {
                int depth = 0;
                for (JsonToken token = p.currentToken();; token = p.nextToken()) {
                    if (token == null) {
                        return (RawJsonObject) ctxt.handleUnexpectedToken(RawJsonObject.class, p);
                    }
                    switch (token) {
                        case START_OBJECT -> {
                            copy.writeStartObject();
                            depth++;
                        }
                        case START_ARRAY -> {
                            copy.writeStartArray();
                            depth++;
                        }
                        case END_OBJECT -> {
                            copy.writeEndObject();
                            depth--;
                        }
                        case END_ARRAY -> {
                            copy.writeEndArray();
                            depth--;
                        }
                        case FIELD_NAME -> copy.writeFieldName(p.currentName());
                        case VALUE_STRING -> copy.writeString(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
                        // as written: no double or BigDecimal on the way, so no digit is lost or changed
                        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> copy.writeNumber(p.getText());
                        case VALUE_TRUE -> copy.writeBoolean(true);
                        case VALUE_FALSE -> copy.writeBoolean(false);
                        case VALUE_NULL -> copy.writeNull();
                        default -> {
                            return (RawJsonObject) ctxt.handleUnexpectedToken(RawJsonObject.class, p);
                        }
                    }
                    if (depth == 0) {
                        break;
                    }
                }
            }
            return new RawJsonObject(out.toString());
        }
    }

    /** Writes the text in place, as the value it is. */
    public static final class Writer extends StdSerializer<RawJsonObject> {

        public Writer() {
            super(RawJsonObject.class);
        }

        @Override
        public void serialize(RawJsonObject value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeRawValue(value.json());
        }
    }
}
