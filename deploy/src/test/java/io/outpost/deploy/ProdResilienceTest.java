package io.outpost.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What keeps prod serving through a node drain, a lost zone and a failover, and what stays as it was applied:
 * disruption budgets, placement, synchronous replication, pinned versions (docs/operations.md, "Node drains",
 * "Switchover and failover").
 */
class ProdResilienceTest {

    static Rendered prod;

    @BeforeAll
    static void render() throws Exception {
        prod = Rendered.overlay("prod");
    }

    /**
     * A drain evicts one pod of a service at a time (never two of three notification-service replicas, whose players
     * would all land on the last one), and a pod that is not ready never blocks it.
     */
    @ParameterizedTest
    @ValueSource(strings = { "dev", "prod" })
    void eachServiceLosesAtMostOnePodToADrainAndAnUnhealthyPodNeverBlocksOne(String overlay) throws Exception {
        Rendered rendered = Rendered.overlay(overlay);
        for (String service : ManifestsTest.SERVICES) {
            JsonNode budget = rendered.named("PodDisruptionBudget", service).path("spec");
            assertThat(budget.path("maxUnavailable").asInt()).as(service).isEqualTo(1);
            assertThat(budget.has("minAvailable")).as(service).isFalse();
            assertThat(budget.path("unhealthyPodEvictionPolicy").asText()).as(service).isEqualTo("AlwaysAllow");
            assertThat(budget.path("selector").path("matchLabels")).as(service).isEqualTo(
                    rendered.named("Deployment", service).path("spec").path("selector").path("matchLabels"));
        }
    }

    @Test
    void replicasAreSpreadOverNodesAndZonesEachRolloutOnItsOwn() {
        for (String service : ManifestsTest.SERVICES) {
            List<JsonNode> spread = Rendered.list(prod.podSpec(service).path("topologySpreadConstraints"));
            assertThat(spread).as(service).extracting(c -> c.path("topologyKey").asText())
                    .containsExactlyInAnyOrder("kubernetes.io/hostname", "topology.kubernetes.io/zone");
            for (JsonNode constraint : spread) {
                assertThat(constraint.path("labelSelector").path("matchLabels").path("app.kubernetes.io/name").asText())
                        .isEqualTo(service);
                assertThat(Rendered.list(constraint.path("matchLabelKeys"))).extracting(JsonNode::asText)
                        .containsExactly("pod-template-hash");
            }
        }
    }

    /** Each broker knows its zone, and the node pool never puts two on one node and spreads over the zones. */
    @Test
    void kafkaIsRackAwareAndItsNodesSpreadOverNodesAndZones() {
        JsonNode kafka = prod.named("Kafka", "outpost").path("spec").path("kafka");
        assertThat(kafka.path("rack").path("topologyKey").asText()).isEqualTo("topology.kubernetes.io/zone");
        JsonNode pool = prod.named("KafkaNodePool", "dual-role").path("spec");
        assertThat(pool.path("replicas").asInt()).isEqualTo(3);
        JsonNode pod = pool.path("template").path("pod");
        JsonNode apart = pod.path("affinity").path("podAntiAffinity").path("requiredDuringSchedulingIgnoredDuringExecution")
                .get(0);
        assertThat(apart.path("topologyKey").asText()).isEqualTo("kubernetes.io/hostname");
        assertThat(apart.path("labelSelector").path("matchLabels").path("strimzi.io/pool-name").asText())
                .isEqualTo("dual-role");
        JsonNode zones = pod.path("topologySpreadConstraints").get(0);
        assertThat(zones.path("topologyKey").asText()).isEqualTo("topology.kubernetes.io/zone");
        assertThat(zones.path("maxSkew").asInt()).isEqualTo(1);
        assertThat(zones.path("labelSelector").path("matchLabels").path("strimzi.io/pool-name").asText())
                .isEqualTo("dual-role");
    }

    /**
     * A commit is acknowledged only once a standby holds it, and one lost instance does not stop writes: of the two
     * standbys, any one suffices. The instances are never two on one node and spread over the zones.
     */
    @Test
    void postgresCommitsOnlyWhatAStandbyHoldsAndSurvivesOneLostInstance() throws Exception {
        JsonNode cluster = prod.named("Cluster", "outpost-db").path("spec");
        JsonNode synchronous = cluster.path("postgresql").path("synchronous");
        assertThat(synchronous.path("dataDurability").asText()).isEqualTo("required");
        assertThat(synchronous.path("method").asText()).isEqualTo("any");
        int standbys = cluster.path("instances").asInt() - 1;
        assertThat(synchronous.path("number").asInt()).as("standbys that must confirm").isPositive()
                .isLessThan(standbys);
        assertThat(cluster.path("affinity").path("podAntiAffinityType").asText()).isEqualTo("required");
        assertThat(cluster.path("affinity").path("topologyKey").asText()).isEqualTo("kubernetes.io/hostname");
        assertThat(cluster.path("topologySpreadConstraints").get(0).path("topologyKey").asText())
                .isEqualTo("topology.kubernetes.io/zone");
        String failover = ProdKafkaAndMonitoringTest.section(Files.readString(Rendered.ROOT.resolve(
                "docs/operations.md")), "### Switchover and failover");
        assertThat(failover).contains("dataDurability: required").contains("switchover").contains("failover");
    }

    /**
     * Nothing moves until someone changes the manifests: Kafka's version and metadata version are set (an operator
     * upgrade does not upgrade Kafka), and PostgreSQL runs one image by digest, through an ImageCatalog.
     */
    @Test
    void kafkaAndPostgresqlVersionsArePinned() {
        JsonNode kafka = prod.named("Kafka", "outpost").path("spec").path("kafka");
        assertThat(kafka.path("version").asText()).matches("\\d+\\.\\d+\\.\\d+");
        assertThat(kafka.path("metadataVersion").asText())
                .startsWith(kafka.path("version").asText().replaceFirst("\\.\\d+$", "") + "-IV");
        JsonNode cluster = prod.named("Cluster", "outpost-db").path("spec");
        assertThat(cluster.has("imageName")).as("no rolling tag").isFalse();
        JsonNode ref = cluster.path("imageCatalogRef");
        assertThat(ref.path("kind").asText()).isEqualTo("ImageCatalog");
        JsonNode images = prod.named("ImageCatalog", ref.path("name").asText()).path("spec").path("images");
        JsonNode image = Rendered.list(images).stream().filter(i -> i.path("major").asInt() == ref.path("major").asInt())
                .findFirst().orElseThrow();
        assertThat(image.path("image").asText()).matches("[^@]+:" + ref.path("major").asInt()
                + "\\.\\d+[^@]*@sha256:[0-9a-f]{64}");
    }
}
