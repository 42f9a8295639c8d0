package io.outpost.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A restricted namespace, an identity per service with no API token, and network policies that admit only what each
 * part needs (docs/deploy.md, "Pod security", "Network policies").
 */
class LeastPrivilegeTest {

    static Rendered prod;

    @BeforeAll
    static void render() throws Exception {
        prod = Rendered.overlay("prod");
    }

    @ParameterizedTest
    @ValueSource(strings = { "dev", "prod" })
    void theOverlayCreatesItsNamespaceUnderPodSecurityAdmission(String overlay) throws Exception {
        Rendered rendered = Rendered.overlay(overlay);
        JsonNode namespace = rendered.ofKind("Namespace").get(0);
        String name = namespace.path("metadata").path("name").asText();
        assertThat(rendered.ofKind("Namespace")).hasSize(1);
        for (JsonNode object : rendered.objects()) {
            if (!object.path("kind").asText().equals("Namespace")) {
                assertThat(object.path("metadata").path("namespace").asText()).as("%s", object.path("metadata"))
                        .isEqualTo(name);
            }
        }
        JsonNode labels = namespace.path("metadata").path("labels");
        assertThat(labels.path("pod-security.kubernetes.io/warn").asText()).isEqualTo("restricted");
        assertThat(labels.path("pod-security.kubernetes.io/enforce").asText())
                .isEqualTo(overlay.equals("prod") ? "restricted" : "baseline");
    }

    /** Every pod Outpost runs meets the restricted profile, in the Deployments and in on call's Job. */
    @ParameterizedTest
    @ValueSource(strings = { "overlays/dev", "overlays/prod", "ops/dead-letters" })
    void everyPodTemplateMeetsTheRestrictedProfile(String kustomization) throws Exception {
        Rendered rendered = Rendered.kustomization(kustomization);
        List<JsonNode> pods = new ArrayList<>();
        for (String kind : List.of("Deployment", "Job")) {
            rendered.ofKind(kind).forEach(o -> pods.add(o.path("spec").path("template").path("spec")));
        }
        assertThat(pods).isNotEmpty();
        for (JsonNode pod : pods) {
            assertThat(restrictedFaults(pod)).isEmpty();
            assertThat(pod.path("automountServiceAccountToken").asBoolean(true)).as("no API token").isFalse();
        }
    }

    /** What the profile asks of a pod (Kubernetes' Pod Security Standards, restricted). */
    static List<String> restrictedFaults(JsonNode pod) {
        List<String> faults = new ArrayList<>();
        JsonNode context = pod.path("securityContext");
        for (String host : List.of("hostNetwork", "hostPID", "hostIPC")) {
            if (pod.path(host).asBoolean()) {
                faults.add(host);
            }
        }
        for (JsonNode volume : pod.path("volumes")) {
            if (volume.has("hostPath")) {
                faults.add("hostPath volume " + volume.path("name").asText());
            }
        }
        List<JsonNode> containers = new ArrayList<>(Rendered.list(pod.path("containers")));
        containers.addAll(Rendered.list(pod.path("initContainers")));
        for (JsonNode container : containers) {
            faults.addAll(containerFaults(container.path("name").asText(), container.path("securityContext"), context));
        }
        return faults;
    }

    static List<String> containerFaults(String name, JsonNode container, JsonNode pod) {
        List<String> faults = new ArrayList<>();
        if (container.path("privileged").asBoolean()) {
            faults.add(name + ": privileged");
        }
        if (container.path("allowPrivilegeEscalation").asBoolean(true)) {
            faults.add(name + ": allowPrivilegeEscalation is not false");
        }
        if (!Rendered.list(container.path("capabilities").path("drop")).stream().anyMatch(c -> c.asText().equals("ALL"))) {
            faults.add(name + ": does not drop ALL capabilities");
        }
        for (JsonNode added : container.path("capabilities").path("add")) {
            if (!added.asText().equals("NET_BIND_SERVICE")) {
                faults.add(name + ": adds " + added.asText());
            }
        }
        if (!container.path("runAsNonRoot").asBoolean(pod.path("runAsNonRoot").asBoolean())) {
            faults.add(name + ": runAsNonRoot is not true");
        }
        if (container.path("runAsUser").asInt(pod.path("runAsUser").asInt(-1)) == 0) {
            faults.add(name + ": runs as uid 0");
        }
        String seccomp = container.path("seccompProfile").path("type").asText(pod.path("seccompProfile").path("type")
                .asText());
        if (!Set.of("RuntimeDefault", "Localhost").contains(seccomp)) {
            faults.add(name + ": seccompProfile is not RuntimeDefault");
        }
        return faults;
    }

    /**
     * Strimzi's pods: every container the manifests template (brokers and their rack init container, the entity
     * operator's, Kafka Exporter) meets the profile; the operator's restricted provider covers the pod level.
     */
    @Test
    void strimzisContainersMeetTheRestrictedProfile() {
        JsonNode none = prod.named("Kafka", "outpost").path("missing");
        JsonNode pool = prod.named("KafkaNodePool", "dual-role").path("spec").path("template");
        JsonNode kafka = prod.named("Kafka", "outpost").path("spec");
        List<String> faults = new ArrayList<>();
        faults.addAll(containerFaults("kafka", pool.path("kafkaContainer").path("securityContext"), none));
        faults.addAll(containerFaults("kafka-init", pool.path("initContainer").path("securityContext"), none));
        JsonNode entity = kafka.path("entityOperator").path("template");
        faults.addAll(containerFaults("topic-operator", entity.path("topicOperatorContainer").path("securityContext"), none));
        faults.addAll(containerFaults("user-operator", entity.path("userOperatorContainer").path("securityContext"), none));
        faults.addAll(containerFaults("kafka-exporter", kafka.path("kafkaExporter").path("template").path("container")
                .path("securityContext"), none));
        assertThat(faults).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = { "dev", "prod" })
    void eachServiceRunsAsItsOwnServiceAccountWithNoToken(String overlay) throws Exception {
        Rendered rendered = Rendered.overlay(overlay);
        assertThat(rendered.ofKind("ServiceAccount")).hasSize(ManifestsTest.SERVICES.size());
        for (String service : ManifestsTest.SERVICES) {
            assertThat(rendered.podSpec(service).path("serviceAccountName").asText()).isEqualTo(service);
            assertThat(rendered.named("ServiceAccount", service).path("automountServiceAccountToken").asBoolean(true))
                    .as(service).isFalse();
        }
    }

    /**
     * What each Outpost pod may send (every policy that selects it, added up): DNS, auth-service's keys, the Kafka
     * listener; the services also PostgreSQL. Nothing else: egress is denied by default.
     */
    @Test
    void outpostPodsReachOnlyDnsKeysKafkaAndTheirDatabase() throws Exception {
        Set<String> common = Set.of("kube-system/k8s-app=kube-dns:53/UDP", "kube-system/k8s-app=kube-dns:53/TCP",
                "app.kubernetes.io/name=auth-service:http/TCP", "strimzi.io/cluster=outpost,strimzi.io/kind=Kafka:9093/TCP");
        for (String service : ManifestsTest.SERVICES) {
            Set<String> expected = new TreeSet<>(common);
            expected.add("cnpg.io/cluster=outpost-db:5432/TCP");
            assertThat(NetworkPolicies.egress(prod, prod.named("Deployment", service).path("spec").path("template")))
                    .as(service).isEqualTo(expected);
        }
        JsonNode job = Rendered.kustomization("ops/dead-letters").named("Job", "dead-letters");
        assertThat(NetworkPolicies.egress(prod, job.path("spec").path("template"))).as("the dead-letter Job")
                .isEqualTo(new TreeSet<>(common));
        assertThat(NetworkPolicies.deniesByDefault(prod, prod.named("Deployment", "history-service").path("spec")
                .path("template"), "Egress")).isTrue();
    }

    /**
     * The PostgreSQL instances accept the three services and each other on 5432, the operator on its status port,
     * the scraper on the metrics port; the Kafka listener only Outpost's pods and the namespaces labelled for it.
     */
    @Test
    void theDataPlaneAdmitsOnlyItsClients() {
        JsonNode instance = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode().set("metadata",
                new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode().set("labels",
                        new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode()
                                .put("cnpg.io/cluster", "outpost-db").put("cnpg.io/podRole", "instance")));
        assertThat(NetworkPolicies.ingress(prod, instance)).containsExactlyInAnyOrder(
                "app.kubernetes.io/name in [auth-service, notification-service, history-service]:5432/TCP",
                "cnpg.io/cluster=outpost-db:5432/TCP", "cnpg-system/*:8000/TCP", "cnpg-system/*:5432/TCP",
                "monitoring/*:9187/TCP");
        JsonNode peers = prod.named("Kafka", "outpost").path("spec").path("kafka").path("listeners").get(0)
                .path("networkPolicyPeers");
        assertThat(Rendered.list(peers)).extracting(JsonNode::toString).containsExactlyInAnyOrder(
                "{\"podSelector\":{\"matchLabels\":{\"app.kubernetes.io/part-of\":\"outpost\"}}}",
                "{\"namespaceSelector\":{\"matchLabels\":{\"outpost.io/kafka-access\":\"true\"}}}");
    }
}
