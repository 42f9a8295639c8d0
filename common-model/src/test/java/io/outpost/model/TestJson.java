package io.outpost.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * A mapper configured like the services' Quarkus mapper (JavaTimeModule, dates not as timestamps, unknown
 * properties ignored), plus small helpers to look at what it writes.
 */
public final class TestJson {

    public static final ObjectMapper MAPPER = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private TestJson() {
    }

    /** Serializes {@code value} to text and parses that text back as a tree. */
    public static JsonNode tree(Object value) {
        try {
            return MAPPER.readTree(MAPPER.writeValueAsString(value));
        } catch (JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }

    public static JsonNode parse(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }

    public static <T> T read(String json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }

    /** Serializes {@code value} and reads it back as the same type. */
    @SuppressWarnings("unchecked")
    public static <T> T roundTrip(T value) {
        try {
            return (T) MAPPER.readValue(MAPPER.writeValueAsString(value), value.getClass());
        } catch (JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }

    /** The field names of a JSON object, in document order. */
    public static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** Asserts that {@code value} serializes to exactly the JSON {@code expected} (field order aside). */
    public static void assertSerializesTo(Object value, String expected) {
        assertThat(tree(value)).isEqualTo(parse(expected));
    }
}
