package io.outpost.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;

/**
 * docs/asyncapi.yaml, as a producer's tooling reads it: each message's key, value and headers are JSON Schema
 * (draft-07) that a record either meets or not. A value that is not one strict JSON document (no key twice, UTF-8)
 * meets no schema.
 */
final class AsyncApiDocument {

    static final Path FILE = Path.of("..", "docs", "asyncapi.yaml");
    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final JsonSchemaFactory SCHEMAS = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7);

    private final JsonNode root;

    private AsyncApiDocument(JsonNode root) {
        this.root = root;
    }

    static AsyncApiDocument load() {
        try {
            return new AsyncApiDocument(new YAMLMapper().readTree(FILE.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    JsonNode root() {
        return root;
    }

    /** The message that the channel at {@code address} carries (its only one). */
    JsonNode message(String address) {
        for (JsonNode channel : root.path("channels")) {
            if (address.equals(channel.path("address").asText())) {
                return resolve(channel.path("messages").elements().next());
            }
        }
        throw new IllegalArgumentException("no channel " + address);
    }

    /** What is wrong with a record of {@code address} (key and value as sent); empty when it meets the schemas. */
    List<String> faults(String address, String key, byte[] value) {
        JsonNode message = message(address);
        List<String> faults = new java.util.ArrayList<>();
        JsonNode keySchema = message.path("bindings").path("kafka").path("key");
        JsonNode keyNode = key == null ? JsonNodeFactory.instance.nullNode() : JsonNodeFactory.instance.textNode(key);
        if (!keySchema.isMissingNode()) {
            schema(keySchema).validate(keyNode).forEach(m -> faults.add("key: " + m.getMessage()));
        }
        JsonNode parsed;
        try {
            parsed = value == null ? JsonNodeFactory.instance.nullNode() : STRICT.readTree(value);
        } catch (IOException e) {
            faults.add("value: not one strict JSON document");
            return faults;
        }
        schema(message.path("payload")).validate(parsed).forEach(m -> faults.add("value: " + m.getMessage()));
        return faults;
    }

    /** What is wrong with the headers of a record of {@code address}; empty when they meet the schema. */
    List<String> headerFaults(String address, Map<String, String> headers) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        headers.forEach(node::put);
        return schema(message(address).path("headers")).validate(node).stream().map(m -> "headers: " + m.getMessage())
                .toList();
    }

    /** {@code schema} with the document's components beside it, so that its references resolve. */
    private JsonSchema schema(JsonNode schema) {
        ObjectNode standalone = JsonNodeFactory.instance.objectNode();
        standalone.putArray("allOf").add(schema);
        standalone.set("components", root.path("components"));
        return SCHEMAS.getSchema(standalone);
    }

    /** {@code node}, or what its {@code $ref} names in the document. */
    JsonNode resolve(JsonNode node) {
        JsonNode at = node;
        while (at.has("$ref")) {
            at = root.at(at.get("$ref").asText().substring(1));
        }
        return at;
    }

    static byte[] utf8(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }
}
