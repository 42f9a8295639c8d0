package io.outpost.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What {@code kubectl apply --validate=strict} would say of every rendered object, against the schemas the operators
 * and Kubernetes publish ({@link ApiSchemas}; their releases: src/test/resources/schemas/README.md and
 * docs/deploy.md).
 */
class ApiSchemaValidationTest {

    /** Every overlay, each edge of prod (docs/deploy.md, "Choosing the edge"), and what on call applies by hand. */
    @ParameterizedTest
    @ValueSource(strings = { "overlays/dev", "overlays/prod", "overlays/prod+gateway-api", "ops/dead-letters" })
    void everyRenderedObjectValidatesAgainstItsServedApiSchema(String kustomization) throws Exception {
        Rendered rendered = Rendered.kustomization(kustomization);
        assertThat(rendered.objects()).isNotEmpty();
        List<String> faults = new ArrayList<>();
        for (JsonNode object : rendered.objects()) {
            faults.addAll(ApiSchemas.get().faults(object));
        }
        assertThat(faults).as(kustomization).isEmpty();
    }

    @Test
    void anUnknownFieldAWrongTypeAndAnUnservedVersionAreEachRefused() throws Exception {
        Rendered prod = Rendered.overlay("prod");
        ApiSchemas schemas = ApiSchemas.get();

        ObjectNode kafka = prod.named("Kafka", "outpost").deepCopy();
        ((ObjectNode) kafka.path("spec").path("kafka")).put("listenerz", "tls");
        assertThat(schemas.faults(kafka)).singleElement().asString().contains("listenerz");
        kafka = prod.named("Kafka", "outpost").deepCopy();
        ((ObjectNode) kafka.path("spec").path("kafka").path("listeners").get(0)).put("port", "9093");
        assertThat(schemas.faults(kafka)).singleElement().asString().contains("port").contains("string")
                .contains("integer");
        kafka = prod.named("Kafka", "outpost").deepCopy();
        kafka.put("apiVersion", "kafka.strimzi.io/v1beta2");
        assertThat(schemas.faults(kafka)).singleElement().asString().contains("not served").contains("[v1]");

        ObjectNode cluster = prod.named("Cluster", "outpost-db").deepCopy();
        ((ObjectNode) cluster.path("spec")).put("instancez", 3);
        assertThat(schemas.faults(cluster)).singleElement().asString().contains("instancez");
        cluster = prod.named("Cluster", "outpost-db").deepCopy();
        ((ObjectNode) cluster.path("metadata")).putObject("lables").put("a", "b");
        assertThat(schemas.faults(cluster)).singleElement().asString().contains("lables");

        ObjectNode deployment = prod.named("Deployment", "auth-service").deepCopy();
        ((ObjectNode) deployment.path("spec").path("template").path("spec").path("containers").get(0))
                .put("imagePullPolicyy", "Always");
        assertThat(schemas.faults(deployment)).singleElement().asString().contains("imagePullPolicyy");
        ObjectNode budget = prod.named("PodDisruptionBudget", "notification-service").deepCopy();
        ((ObjectNode) budget.path("spec")).put("maxUnavailable", true);
        assertThat(schemas.faults(budget)).isNotEmpty().allSatisfy(f -> assertThat(f).contains("maxUnavailable"));
        budget = prod.named("PodDisruptionBudget", "notification-service").deepCopy();
        budget.put("apiVersion", "policy/v1beta1");
        assertThat(schemas.faults(budget)).singleElement().asString().contains("not served");

        ObjectNode widget = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode()
                .put("apiVersion", "example.com/v1").put("kind", "Widget");
        widget.putObject("metadata").put("name", "w");
        assertThat(schemas.faults(widget)).singleElement().asString().contains("no API schema");
    }

    /** A map (labels) and a field that keeps unknown fields (Strimzi's Kafka config) stay open. */
    @Test
    void mapsAndPreservedFieldsStayOpen() throws Exception {
        Rendered prod = Rendered.overlay("prod");
        ObjectNode kafka = prod.named("Kafka", "outpost").deepCopy();
        ((ObjectNode) kafka.path("spec").path("kafka").path("config")).put("num.io.threads", 8);
        ((ObjectNode) kafka.path("metadata")).putObject("labels").put("any", "label");
        assertThat(ApiSchemas.get().faults(kafka)).isEmpty();
    }

    /**
     * Each schema file is named, with its release and where it comes from, in the README beside it; docs/deploy.md
     * names the same releases as those the manifests are tested against.
     */
    @Test
    void theSchemasAreTheReleasesTheDocsName() throws Exception {
        String readme = Files.readString(ApiSchemas.DIR.resolve("README.md"));
        String deployDoc = Files.readString(Rendered.ROOT.resolve("docs/deploy.md"));
        String tested = ProdKafkaAndMonitoringTest.section(deployDoc, "### Tested against");
        try (Stream<Path> dirs = Files.list(ApiSchemas.DIR)) {
            for (Path dir : dirs.filter(Files::isDirectory).sorted().toList()) {
                String name = dir.getFileName().toString();
                Matcher release = Pattern.compile(".+-(\\d+\\.\\d+(\\.\\d+)?)").matcher(name);
                assertThat(release.matches()).as(name).isTrue();
                assertThat(tested).as("docs/deploy.md names %s", name).contains("`" + name + "/`")
                        .contains("| " + release.group(1) + " |");
                try (Stream<Path> files = Files.list(dir)) {
                    for (Path file : files.toList()) {
                        assertThat(readme).as("README.md names %s", file.getFileName())
                                .contains("`" + name + "/" + file.getFileName() + "`");
                    }
                }
            }
        }
    }
}
