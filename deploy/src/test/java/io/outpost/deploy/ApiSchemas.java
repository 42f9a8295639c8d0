package io.outpost.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;

/**
 * Every rendered object checked as {@code kubectl apply --validate=strict} would check it, without a cluster: against
 * the {@code openAPIV3Schema} of the served version of its CustomResourceDefinition, as the operators publish them,
 * or against Kubernetes' own API schema (src/test/resources/schemas, README.md there names each file's release and
 * source). Strict: a field a schema does not name is refused unless the schema keeps unknown fields
 * ({@code x-kubernetes-preserve-unknown-fields}) or is a map ({@code additionalProperties}); a custom resource's
 * {@code metadata} is checked as Kubernetes' {@code ObjectMeta}. An apiVersion its kind is not served at, and a kind
 * with no schema at all, are refused too. Not evaluated: CEL rules ({@code x-kubernetes-validations}), which only
 * the API server runs.
 */
final class ApiSchemas {

    static final Path DIR = Rendered.DEPLOY.resolve("src/test/resources/schemas");
    private static final String OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static ApiSchemas loaded;

    /** "group/version/Kind" (core: "v1/Kind") of every served version, to its schema. */
    private final Map<String, JsonNode> served = new TreeMap<>();
    /** "group/Kind" to its served versions, for a version that is not served. */
    private final Map<String, Set<String>> versions = new TreeMap<>();
    private final Map<String, JsonSchema> compiled = new TreeMap<>();
    private final ObjectNode definitions;

    private ApiSchemas() throws IOException {
        try (Stream<Path> files = Files.walk(DIR)) {
            List<Path> all = files.sorted().toList();
            Path core = all.stream().filter(f -> f.getFileName().toString().equals("definitions.json")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no Kubernetes definitions.json under " + DIR));
            definitions = (ObjectNode) JSON.readTree(core.toFile()).path("definitions");
            definitions.set("io.k8s.apimachinery.pkg.util.intstr.IntOrString", anyOf("integer", "string"));
            definitions.set("io.k8s.apimachinery.pkg.api.resource.Quantity", anyOf("string", "number"));
            definitions.forEach(definition -> close((ObjectNode) definition, false));
            definitions.fields().forEachRemaining(entry -> {
                for (JsonNode gvk : entry.getValue().path("x-kubernetes-group-version-kind")) {
                    add(gvk.path("group").asText(), gvk.path("version").asText(), gvk.path("kind").asText(),
                            withDefinitions(JSON.createObjectNode().put("$ref", "#/definitions/" + entry.getKey())));
                }
            });
            for (Path file : all.stream().filter(f -> f.toString().endsWith(".yaml")).toList()) {
                JsonNode crd = new YAMLMapper().readTree(file.toFile());
                if (!crd.path("kind").asText().equals("CustomResourceDefinition")) {
                    throw new IllegalStateException(file + " is not a CustomResourceDefinition");
                }
                String group = crd.path("spec").path("group").asText();
                String kind = crd.path("spec").path("names").path("kind").asText();
                versions.computeIfAbsent(group + "/" + kind, k -> new TreeSet<>());
                for (JsonNode version : crd.path("spec").path("versions")) {
                    if (version.path("served").asBoolean()) {
                        ObjectNode schema = (ObjectNode) version.path("schema").path("openAPIV3Schema").deepCopy();
                        close(schema, true);
                        ((ObjectNode) schema.with("properties")).set("metadata",
                                JSON.createObjectNode().put("$ref", "#/definitions/" + OBJECT_META));
                        add(group, version.path("name").asText(), kind, withDefinitions(schema));
                    }
                }
            }
        }
    }

    static synchronized ApiSchemas get() {
        if (loaded == null) {
            try {
                loaded = new ApiSchemas();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return loaded;
    }

    /** The faults of one rendered object: an unknown kind, an unserved version, each schema violation. */
    List<String> faults(JsonNode object) {
        String apiVersion = object.path("apiVersion").asText();
        String kind = object.path("kind").asText();
        String name = apiVersion + " " + kind + " " + object.path("metadata").path("name").asText();
        String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
        String version = apiVersion.substring(apiVersion.indexOf('/') + 1);
        JsonNode schema = served.get(group + "/" + version + "/" + kind);
        if (schema == null) {
            Set<String> known = versions.get(group + "/" + kind);
            return List.of(name + ": " + (known == null ? "no API schema for this kind (add its CRD under " + DIR + ")"
                    : "version " + version + " is not served (served: " + known + ")"));
        }
        JsonSchema validator = compiled.computeIfAbsent(group + "/" + version + "/" + kind,
                key -> JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(schema,
                        SchemaValidatorsConfig.builder().typeLoose(false).build()));
        List<String> faults = new ArrayList<>();
        for (ValidationMessage message : validator.validate(object)) {
            faults.add(name + ": " + message.getMessage());
        }
        return faults;
    }

    private void add(String group, String version, String kind, JsonNode schema) {
        served.put(group + "/" + version + "/" + kind, schema);
        versions.computeIfAbsent(group + "/" + kind, k -> new TreeSet<>()).add(version);
    }

    private ObjectNode withDefinitions(ObjectNode schema) {
        schema.set("definitions", definitions);
        return schema;
    }

    private static ObjectNode anyOf(String... types) {
        ObjectNode node = JSON.createObjectNode();
        ArrayNode options = node.putArray("anyOf");
        for (String type : types) {
            options.addObject().put("type", type);
        }
        return node;
    }

    /**
     * Refuses unknown fields below {@code schema}: an object with named properties takes no others; in a CRD (where
     * an object schema without properties prunes every field the API server is sent) neither does a bare object.
     * Maps ({@code additionalProperties}) and what preserves unknown fields stay open.
     */
    private static void close(ObjectNode schema, boolean crd) {
        boolean preserves = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
        boolean object = schema.has("properties") || (crd && "object".equals(schema.path("type").asText()));
        if (object && !preserves && !schema.has("additionalProperties")) {
            schema.put("additionalProperties", false);
        }
        schema.path("properties").forEach(property -> close((ObjectNode) property, crd));
        // not into anyOf/allOf/oneOf/not: in a structural schema they only restate fields the outer schema names
        for (String keyword : List.of("items", "additionalProperties")) {
            if (schema.path(keyword).isObject()) {
                close((ObjectNode) schema.path(keyword), crd);
            }
        }
    }
}
