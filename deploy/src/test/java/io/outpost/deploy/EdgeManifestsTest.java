package io.outpost.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The edge in both overlays (docs/deploy.md, "The admin API", "Client addresses", "Request paths at the
 * ingress"): the admin API is reachable only through its own Service and port, from namespaces the platform team
 * labels; the services learn the public URL and trust forwarded headers from the configured proxies only; the
 * Ingresses, or the Gateway's HTTPRoutes, route the public prefixes alone; the notification routes keep a player on
 * one replica.
 */
class EdgeManifestsTest {

    @ParameterizedTest
    @ValueSource(strings = { "dev", "prod", "prod+gateway-api" })
    void theAdminApiHasItsOwnPortServiceAndPolicyAndNoRoute(String overlay) throws Exception {
        Rendered rendered = Rendered.overlay(overlay);
        for (JsonNode route : rendered.ofKind("HTTPRoute")) {
            for (JsonNode rule : Rendered.list(route.path("spec").path("rules"))) {
                for (JsonNode backend : Rendered.list(rule.path("backendRefs"))) {
                    assertThat(backend.path("name").asText()).isNotEqualTo("auth-service-admin");
                    assertThat(rendered.named("Service", backend.path("name").asText()).path("spec").path("ports")
                            .findValuesAsText("targetPort")).as("%s", backend).containsExactly("http");
                }
            }
        }
        JsonNode auth = rendered.container("auth-service");
        JsonNode adminPort = Rendered.list(auth.path("ports")).stream()
                .filter(p -> p.path("name").asText().equals("admin")).findFirst().orElseThrow();
        assertThat(adminPort.path("containerPort").asText()).isEqualTo(Rendered.env(auth, "OUTPOST_AUTH_ADMIN_PORT"));
        // the public Service never reaches it; only auth-service-admin does
        assertThat(Rendered.list(rendered.named("Service", "auth-service").path("spec").path("ports")))
                .extracting(p -> p.path("targetPort").asText()).containsExactly("http");
        assertThat(Rendered.list(rendered.named("Service", "auth-service-admin").path("spec").path("ports")))
                .extracting(p -> p.path("targetPort").asText()).containsExactly("admin");
        // no Ingress routes to it
        for (JsonNode ingress : rendered.ofKind("Ingress")) {
            for (JsonNode rule : Rendered.list(ingress.path("spec").path("rules"))) {
                for (JsonNode path : Rendered.list(rule.path("http").path("paths"))) {
                    JsonNode backend = path.path("backend").path("service");
                    assertThat(backend.path("name").asText()).isNotEqualTo("auth-service-admin");
                    assertThat(backend.path("port").path("name").asText()).isEqualTo("http");
                }
            }
        }
        // network policies admit the admin port only from the labelled namespaces
        List<JsonNode> admitting = rendered.ofKind("NetworkPolicy").stream().filter(policy -> Rendered
                .list(policy.path("spec").path("ingress")).stream().anyMatch(rule -> Rendered.list(rule.path("ports"))
                        .stream().anyMatch(port -> port.path("port").asText().equals("admin")))).toList();
        assertThat(admitting).hasSize(1);
        JsonNode from = admitting.get(0).path("spec").path("ingress").get(0).path("from");
        assertThat(from).hasSize(1);
        assertThat(from.get(0).path("namespaceSelector").path("matchLabels").path("outpost.io/admin-access").asText())
                .isEqualTo("true");
        assertThat(from.get(0).has("podSelector")).isFalse();
        for (JsonNode policy : rendered.ofKind("NetworkPolicy")) {
            for (JsonNode rule : Rendered.list(policy.path("spec").path("ingress"))) {
                assertThat(rule.path("ports").isEmpty()).as("%s admits every port", policy.path("metadata").path("name"))
                        .isFalse();
            }
        }
    }

    /**
     * docs/deploy.md, "Request paths at the ingress": the Ingresses route the public prefixes alone, each a
     * {@code Prefix} (whole segments of the path nginx has normalised), never {@code /} or a service's own
     * {@code /q/…}, with no default backend, regular expression, rewrite or snippet that could route another path.
     */
    @ParameterizedTest
    @ValueSource(strings = { "dev", "prod" })
    void theIngressesRouteOnlyThePublicPrefixesAsWholeSegments(String overlay) throws Exception {
        ProdKafkaAndMonitoringTest.section(Files.readString(Rendered.ROOT.resolve("docs/deploy.md")),
                "## Request paths at the ingress");
        List<JsonNode> ingresses = Rendered.overlay(overlay).ofKind("Ingress");
        assertThat(ingresses).isNotEmpty();
        for (JsonNode ingress : ingresses) {
            String name = ingress.path("metadata").path("name").asText();
            assertThat(ingress.path("spec").has("defaultBackend")).as("%s: a catch-all", name).isFalse();
            ingress.path("metadata").path("annotations").fieldNames().forEachRemaining(annotation ->
                    assertThat(annotation).as(name).doesNotEndWith("/use-regex").doesNotEndWith("/rewrite-target")
                            .doesNotEndWith("-snippet").doesNotEndWith("/default-backend"));
            for (JsonNode rule : Rendered.list(ingress.path("spec").path("rules"))) {
                for (JsonNode path : Rendered.list(rule.path("http").path("paths"))) {
                    String prefix = path.path("path").asText();
                    assertThat(path.path("pathType").asText()).as("%s %s", name, prefix).isEqualTo("Prefix");
                    assertThat(prefix).as(name).isIn("/users", "/.well-known", "/notification", "/v1/history");
                }
            }
        }
    }

    /**
     * docs/deploy.md's ingress-nginx settings keep a held poll across a reload: old workers live longer than the
     * polls' Ingress waits, the controller pod's grace period longer still, and each worker may open a file for
     * every connection it may hold.
     */
    @Test
    void theDocumentedControllerSettingsOutlastTheLongestPoll() throws Exception {
        String doc = ProdKafkaAndMonitoringTest.section(Files.readString(Rendered.ROOT.resolve("docs/deploy.md")),
                "## The ingress controller and held polls");
        JsonNode polls = Rendered.overlay("prod").ofKind("Ingress").stream().filter(i -> Rendered.list(i.path("spec")
                .path("rules").get(0).path("http").path("paths")).stream().anyMatch(p -> p.path("backend")
                        .path("service").path("name").asText().equals("notification-service"))).findFirst().orElseThrow();
        int readTimeout = polls.path("metadata").path("annotations").path("nginx.ingress.kubernetes.io/proxy-read-timeout")
                .asInt();
        int shutdown = setting(doc, "worker-shutdown-timeout: \"(\\d+)s\"");
        assertThat(shutdown).as("worker-shutdown-timeout").isGreaterThanOrEqualTo(readTimeout).isGreaterThan(900);
        assertThat(setting(doc, "terminationGracePeriodSeconds: (\\d+)")).isGreaterThan(shutdown);
        assertThat(setting(doc, "max-worker-open-files: \"(\\d+)\""))
                .isGreaterThanOrEqualTo(setting(doc, "max-worker-connections: \"(\\d+)\""));
    }

    private static int setting(String doc, String pattern) {
        Matcher value = Pattern.compile(pattern).matcher(doc);
        assertThat(value.find()).as(pattern).isTrue();
        return Integer.parseInt(value.group(1));
    }

    @ParameterizedTest
    @ValueSource(strings = { "dev", "prod" })
    void servicesKnowThePublicUrlAndTrustOnlyTheConfiguredProxies(String overlay) throws Exception {
        Rendered rendered = Rendered.overlay(overlay);
        JsonNode config = rendered.named("ConfigMap", "outpost-config").path("data");
        assertThat(rendered.ofKind("Ingress")).isNotEmpty();
        for (JsonNode ingress : rendered.ofKind("Ingress")) {
            String host = ingress.path("spec").path("rules").get(0).path("host").asText();
            assertThat(config.path("public-base-url").asText()).endsWith("://" + host);
            assertThat(ingress.path("metadata").path("annotations")
                    .has("nginx.ingress.kubernetes.io/use-forwarded-headers"))
                    .as("a controller ConfigMap key, not an annotation").isFalse();
        }
        assertThat(config.path("trusted-proxies").asText()).isNotBlank();
        JsonNode auth = rendered.container("auth-service");
        assertThat(Rendered.configKeyOf(auth, "OUTPOST_AUTH_PUBLIC_BASE_URL")).isEqualTo("public-base-url");
        for (String service : ManifestsTest.SERVICES) {
            JsonNode container = rendered.container(service);
            assertThat(Rendered.configKeyOf(container, "OUTPOST_SECURITY_ISSUER")).as(service).isEqualTo("public-base-url");
            assertThat(Rendered.configKeyOf(container, "QUARKUS_HTTP_PROXY_TRUSTED_PROXIES")).as(service)
                    .isEqualTo("trusted-proxies");
        }
    }

    /**
     * Player affinity at the ingress-nginx edge (docs/scaling.md): the notification routes, and they alone, go to a
     * replica chosen by a consistent hash of the bearer token, so a re-poll returns to the replica holding its state.
     */
    @ParameterizedTest
    @ValueSource(strings = { "dev", "prod" })
    void theNotificationRoutesAloneHashEachPlayerToOneReplica(String overlay) throws Exception {
        for (JsonNode ingress : Rendered.overlay(overlay).ofKind("Ingress")) {
            List<String> services = Rendered.list(ingress.path("spec").path("rules").get(0).path("http").path("paths"))
                    .stream().map(p -> p.path("backend").path("service").path("name").asText()).distinct().toList();
            JsonNode hash = ingress.path("metadata").path("annotations").path("nginx.ingress.kubernetes.io/upstream-hash-by");
            if (services.contains("notification-service")) {
                assertThat(services).containsExactly("notification-service");
                assertThat(hash.asText()).isEqualTo("$http_authorization");
            } else {
                assertThat(hash.isMissingNode()).as("%s: %s", overlay, services).isTrue();
            }
        }
    }

    /**
     * The gateway-api edge (docs/deploy.md, "Choosing the edge") serves what the Ingresses do: the public prefixes
     * alone as whole-segment PathPrefix matches, to each service's public port, the polls' routes waiting longer than
     * the longest poll; TLS for the parameterised host from the same Secret and issuer; plain http only redirected.
     */
    @Test
    void theGatewayEdgeRoutesThePublicPrefixesWithTheSameTlsAndPollTimeouts() throws Exception {
        Rendered rendered = Rendered.overlay("prod+gateway-api");
        Properties parameters = new Properties();
        try (var reader = Files.newBufferedReader(ProdOverlayTest.prodFile("parameters.env"))) {
            parameters.load(reader);
        }
        String host = parameters.getProperty("host");
        assertThat(rendered.ofKind("Ingress")).isEmpty();
        JsonNode gateway = rendered.named("Gateway", "outpost");
        assertThat(gateway.path("spec").path("gatewayClassName").asText()).isEqualTo(parameters.getProperty("gateway-class"));
        assertThat(gateway.path("metadata").path("annotations").path("cert-manager.io/cluster-issuer").asText())
                .isEqualTo(parameters.getProperty("cluster-issuer"));
        Map<String, JsonNode> listeners = new TreeMap<>();
        gateway.path("spec").path("listeners").forEach(l -> listeners.put(l.path("name").asText(), l));
        assertThat(listeners).containsOnlyKeys("https", "http");
        assertThat(listeners.get("https").path("protocol").asText()).isEqualTo("HTTPS");
        assertThat(listeners.get("https").path("tls").path("certificateRefs").get(0).path("name").asText())
                .isEqualTo(parameters.getProperty("tls-secret"));
        listeners.values().forEach(l -> assertThat(l.path("hostname").asText()).isEqualTo(host));
        assertThat(rendered.named("ConfigMap", "outpost-config").path("data").path("public-base-url").asText())
                .isEqualTo("https://" + host);

        Map<String, String> routes = new TreeMap<>();
        for (JsonNode route : rendered.ofKind("HTTPRoute")) {
            String name = route.path("metadata").path("name").asText();
            assertThat(Rendered.list(route.path("spec").path("hostnames"))).extracting(JsonNode::asText).as(name)
                    .containsExactly(host);
            String section = route.path("spec").path("parentRefs").get(0).path("sectionName").asText();
            for (JsonNode rule : Rendered.list(route.path("spec").path("rules"))) {
                if (section.equals("http")) {
                    assertThat(rule.has("backendRefs")).as(name + ": http reaches no service").isFalse();
                    assertThat(rule.path("filters").get(0).path("requestRedirect").path("scheme").asText()).isEqualTo("https");
                    continue;
                }
                assertThat(section).isEqualTo("https");
                assertThat(rule.path("matches")).as(name + ": a catch-all").isNotEmpty();
                assertThat(rule.has("filters")).as(name + ": a rewrite or other filter").isFalse();
                JsonNode backend = rule.path("backendRefs").get(0);
                assertThat(rule.path("backendRefs")).hasSize(1);
                assertThat(backend.path("port").asInt()).isEqualTo(rendered.named("Service", backend.path("name").asText())
                        .path("spec").path("ports").get(0).path("port").asInt());
                for (JsonNode match : Rendered.list(rule.path("matches"))) {
                    assertThat(match.path("path").path("type").asText()).as(name).isEqualTo("PathPrefix");
                    routes.put(match.path("path").path("value").asText(), backend.path("name").asText());
                }
                if (!backend.path("name").asText().equals("auth-service")) {
                    for (String timeout : List.of("request", "backendRequest")) {
                        assertThat(Duration.parse("PT" + rule.path("timeouts").path(timeout).asText().toUpperCase()))
                                .as("%s %s", name, timeout).isGreaterThan(Duration.ofSeconds(900));
                    }
                }
            }
        }
        assertThat(routes).isEqualTo(Map.of("/users", "auth-service", "/.well-known", "auth-service",
                "/notification", "notification-service", "/v1/history", "history-service"));
        assertThat(rendered.ofKind("NetworkPolicy")).extracting(p -> p.path("metadata").path("name").asText())
                .contains("outpost-allow-gateway").doesNotContain("outpost-allow-ingress-controller");
    }
}
