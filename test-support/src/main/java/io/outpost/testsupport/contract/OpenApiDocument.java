package io.outpost.testsupport.contract;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;

/**
 * An OpenAPI document as a client generator reads it: valid OpenAPI 3.1 by swagger-parser (the parser of the
 * standard OpenAPI generator), and complete in what a generated client needs — every operation named once, every
 * {@code $ref} resolving, every path parameter declared, every security requirement naming a declared scheme.
 * {@link #problems()} lists what is not so.
 */
public final class OpenApiDocument {

    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");
    private static final Pattern TEMPLATE = Pattern.compile("\\{([^}/]+)}");

    private final String text;
    private final JsonNode root;

    private OpenApiDocument(String text, JsonNode root) {
        this.text = text;
        this.root = root;
    }

    /** A document in JSON or YAML. */
    public static OpenApiDocument parse(String text) {
        try {
            JsonNode root = text.stripLeading().startsWith("{") ? new ObjectMapper().readTree(text)
                    : new YAMLMapper().readTree(text);
            return new OpenApiDocument(text, root);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON or YAML: " + e.getOriginalMessage(), e);
        }
    }

    public JsonNode root() {
        return root;
    }

    /** Every operation as {@code "GET /path/{param}"}. */
    public Set<String> operations() {
        Set<String> operations = new TreeSet<>();
        forEachOperation((key, operation) -> operations.add(key));
        return operations;
    }

    /** The operation {@code "GET /path"}, or a missing node. */
    public JsonNode operation(String key) {
        int space = key.indexOf(' ');
        return root.path("paths").path(key.substring(space + 1)).path(key.substring(0, space).toLowerCase());
    }

    /** The parameter {@code name} of operation {@code key} (its own or its path's), with {@code $ref}s followed. */
    public JsonNode parameter(String key, String name) {
        String path = key.substring(key.indexOf(' ') + 1);
        List<JsonNode> all = new ArrayList<>();
        operation(key).path("parameters").forEach(all::add);
        root.path("paths").path(path).path("parameters").forEach(all::add);
        return all.stream().map(this::resolve).filter(p -> name.equals(p.path("name").asText())).findFirst()
                .orElse(MissingNode.getInstance());
    }

    /** {@code node} itself, or what its {@code $ref} names within this document. */
    public JsonNode resolve(JsonNode node) {
        JsonNode at = node;
        for (int hops = 0; at.has("$ref") && hops < 10; hops++) {
            at = pointer(at.get("$ref").asText());
        }
        return at;
    }

    /** What makes the document unusable by a client generator; empty when none. */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (!root.path("openapi").asText().startsWith("3.1.")) {
            problems.add("openapi is '" + root.path("openapi").asText() + "', not 3.1.x");
        }
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult parsed = new OpenAPIV3Parser().readContents(text, null, options);
        if (parsed.getOpenAPI() == null) {
            problems.add("swagger-parser read no document");
        }
        if (parsed.getMessages() != null) {
            parsed.getMessages().forEach(message -> problems.add("swagger-parser: " + message));
        }
        for (String required : List.of("title", "version")) {
            if (root.path("info").path(required).asText().isEmpty()) {
                problems.add("info." + required + " is missing");
            }
        }
        checkReferences(root, "#", problems);
        Set<String> operationIds = new TreeSet<>();
        forEachOperation((key, operation) -> checkOperation(key, operation, operationIds, problems));
        return problems;
    }

    private void checkOperation(String key, JsonNode operation, Set<String> operationIds, List<String> problems) {
        String id = operation.path("operationId").asText();
        if (id.isEmpty() || !operationIds.add(id)) {
            problems.add(key + ": operationId '" + id + "' is missing or taken");
        }
        if (operation.path("summary").asText().isEmpty()) {
            problems.add(key + ": no summary");
        }
        JsonNode responses = operation.path("responses");
        if (responses.isEmpty()) {
            problems.add(key + ": no responses");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = responses.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> response = it.next();
            JsonNode resolved = resolve(response.getValue());
            if (resolved.path("description").asText().isEmpty()) {
                problems.add(key + " " + response.getKey() + ": no description");
            }
            resolved.path("content").forEach(media -> {
                if (!media.has("schema")) {
                    problems.add(key + " " + response.getKey() + ": a content without schema");
                }
            });
        }
        String path = key.substring(key.indexOf(' ') + 1);
        for (Matcher m = TEMPLATE.matcher(path); m.find();) {
            JsonNode declared = parameter(key, m.group(1));
            if (!"path".equals(declared.path("in").asText()) || !declared.path("required").asBoolean()) {
                problems.add(key + ": path parameter " + m.group(1) + " is not declared as required, in path");
            }
        }
        operation.path("parameters").forEach(p -> {
            if (!resolve(p).has("schema")) {
                problems.add(key + ": parameter " + resolve(p).path("name").asText() + " has no schema");
            }
        });
        JsonNode schemes = root.path("components").path("securitySchemes");
        operation.path("security").forEach(requirement -> requirement.fieldNames().forEachRemaining(name -> {
            if (!schemes.has(name)) {
                problems.add(key + ": security scheme " + name + " is not declared");
            }
        }));
    }

    private void checkReferences(JsonNode node, String at, List<String> problems) {
        if (node.isObject()) {
            JsonNode ref = node.get("$ref");
            if (ref != null && ref.isTextual() && pointer(ref.asText()).isMissingNode()) {
                problems.add(at + ": $ref " + ref.asText() + " names nothing");
            }
            node.fields().forEachRemaining(e -> checkReferences(e.getValue(), at + "/" + e.getKey(), problems));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                checkReferences(node.get(i), at + "/" + i, problems);
            }
        }
    }

    private JsonNode pointer(String ref) {
        if (!ref.startsWith("#/")) {
            return MissingNode.getInstance();
        }
        return root.at(ref.substring(1));
    }

    private void forEachOperation(BiConsumer<String, JsonNode> action) {
        root.path("paths").fields().forEachRemaining(path -> path.getValue().fields().forEachRemaining(method -> {
            if (METHODS.contains(method.getKey())) {
                action.accept(method.getKey().toUpperCase() + " " + path.getKey(), method.getValue());
            }
        }));
    }
}
