package io.outpost.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

/** Every overlay renders, and what it deploys matches what each service listens on and reads. */
class ManifestsTest {

    static final List<String> SERVICES = List.of("auth-service", "notification-service", "history-service");

    @ParameterizedTest
    @ValueSource(strings = { "dev", "prod" })
    void everyObjectWithATypedModelParsesStrictlyIntoIt(String overlay) throws Exception {
        Rendered rendered = Rendered.overlay(overlay);
        assertThat(rendered.objects()).isNotEmpty();
        List<String> faults = new ArrayList<>();
        for (JsonNode object : rendered.objects()) {
            assertThat(object.path("metadata").path("name").asText()).as("name of %s", object).isNotEmpty();
            faults.addAll(TypedObjects.faults(object));
        }
        assertThat(faults).as(overlay).isEmpty();
        assertThat(rendered.objects()).filteredOn(o -> TypedObjects.MODELS.containsKey(
                o.path("apiVersion").asText() + "/" + o.path("kind").asText())).isNotEmpty();
    }

    @Test
    void theStrictParseRefusesAnUnknownField() throws Exception {
        JsonNode deployment = Rendered.overlay("dev").named("Deployment", "auth-service").deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) deployment.path("spec").path("template").path("spec")
                .path("containers").get(0)).put("imagePullPolicyy", "Always");
        assertThat(TypedObjects.faults(deployment)).singleElement().asString()
                .contains("containers[0]").contains("imagePullPolicyy");
        JsonNode user = Rendered.overlay("prod").named("KafkaUser", "history-service").deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) user.path("spec")).put("quotaz", 1);
        assertThat(TypedObjects.faults(user)).isNotEmpty().allSatisfy(fault -> assertThat(fault).contains("quotaz"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "dev", "prod" })
    void eachDeploymentMatchesItsServiceConfiguration(String overlay) throws Exception {
        Rendered rendered = Rendered.overlay(overlay);
        assertThat(rendered.ofKind("Deployment")).extracting(d -> d.path("metadata").path("name").asText())
                .containsExactlyInAnyOrderElementsOf(SERVICES);
        Properties shared = new Properties();
        try (var reader = Files.newBufferedReader(Rendered.ROOT.resolve(
                "service-support/src/main/resources/META-INF/microprofile-config.properties"))) {
            shared.load(reader);
        }
        for (String service : SERVICES) {
            ServiceConfig config = ServiceConfig.of(service);
            JsonNode container = rendered.named("Deployment", service).path("spec").path("template").path("spec")
                    .path("containers").get(0);
            // any registry in front; a tag or a digest after
            assertThat(container.path("image").asText()).as(service).matches("([^/]+/)*"
                    + shared.getProperty("quarkus.container-image.group") + "/" + service + "(:[\\w.-]+|@sha256:[0-9a-f]{64})");
            assertThat(container.path("ports").get(0).path("containerPort").asInt()).as(service).isEqualTo(config.port());
            assertThat(env(container, "QUARKUS_HTTP_PORT")).isEqualTo(Integer.toString(config.port()));
            assertThat(probe(container, "readinessProbe")).isEqualTo("/q/health/ready");
            assertThat(probe(container, "livenessProbe")).isEqualTo("/q/health/live");
            assertThat(probe(container, "startupProbe")).isEqualTo("/q/health/started");
            assertThat(envNames(container)).as(service).contains("QUARKUS_DATASOURCE_REACTIVE_URL",
                    "QUARKUS_DATASOURCE_USERNAME", "QUARKUS_DATASOURCE_PASSWORD");
            assertThat(envNames(container).contains("KAFKA_BOOTSTRAP_SERVERS")).as(service + " Kafka")
                    .isEqualTo(config.consumesKafka());
            List<String> settings = new ArrayList<>(envNames(container));
            settings.addAll(configMapKeys(rendered, service + "-config"));
            for (String name : settings.stream().filter(n -> n.startsWith("OUTPOST_")).toList()) {
                assertThat(config.declares(name)).as("%s: %s names no setting of the service", service, name).isTrue();
            }
            assertThat(container.path("resources").path("requests").path("cpu").asText()).isNotEmpty();
            assertThat(container.path("resources").path("limits").path("memory").asText()).isNotEmpty();
            long shutdown = Long.parseLong(shared.getProperty("quarkus.shutdown.timeout").replace("S", ""));
            long preStop = container.path("lifecycle").path("preStop").path("sleep").path("seconds").asLong();
            assertThat(rendered.named("Deployment", service).path("spec").path("template").path("spec")
                    .path("terminationGracePeriodSeconds").asLong()).as(service + " grace period")
                    .isGreaterThan(shutdown + preStop);
            assertThat(rendered.named("Service", service).path("spec").path("ports").get(0).path("targetPort").asText())
                    .isEqualTo("http");
            assertThat(rendered.named("PodDisruptionBudget", service)).isNotNull();
            assertThat(rendered.named("HorizontalPodAutoscaler", service).path("spec").path("scaleTargetRef")
                    .path("name").asText()).isEqualTo(service);
        }
    }

    /**
     * Each HPA alone owns its Deployment's replica count: a {@code spec.replicas} in the manifest would be applied
     * over a scaled-out Deployment by every {@code kubectl apply}. The floor is the HPA's {@code minReplicas}, and
     * docs/deploy.md gives each range as rendered.
     */
    @ParameterizedTest
    @ValueSource(strings = { "dev", "prod" })
    void theHpaAloneSetsTheReplicaCountOfEachDeployment(String overlay) throws Exception {
        Rendered rendered = Rendered.overlay(overlay);
        String deployDoc = Files.readString(Rendered.ROOT.resolve("docs/deploy.md"));
        for (JsonNode hpa : rendered.ofKind("HorizontalPodAutoscaler")) {
            String target = hpa.path("spec").path("scaleTargetRef").path("name").asText();
            assertThat(rendered.named("Deployment", target).path("spec").has("replicas")).as(target).isFalse();
            int min = hpa.path("spec").path("minReplicas").asInt();
            int max = hpa.path("spec").path("maxReplicas").asInt();
            assertThat(min).as(target + " floor").isPositive().isLessThanOrEqualTo(max);
            if (overlay.equals("prod")) {
                assertThat(deployDoc).as(target + "'s range in docs/deploy.md").contains(min + "–" + max);
            } else {
                assertThat(max).as(target + ": one replica in dev").isEqualTo(1);
            }
        }
    }

    /**
     * auth-service starts on its read-only root filesystem: where no key is configured (dev) it generates one into
     * {@code keys.dev-key-dir}, which must then be on a writable volume of the pod; the code's default is a folder
     * relative to the image's working directory, on the read-only root.
     */
    @ParameterizedTest
    @ValueSource(strings = { "dev", "prod" })
    void authServiceWritesItsDevelopmentKeyOnlyWhereItCan(String overlay) throws Exception {
        Rendered rendered = Rendered.overlay(overlay);
        JsonNode container = rendered.container("auth-service");
        assertThat(container.path("securityContext").path("readOnlyRootFilesystem").asBoolean()).isTrue();
        if (envNames(container).contains("OUTPOST_AUTH_KEYS_GENERATE_DEV_KEY")
                && env(container, "OUTPOST_AUTH_KEYS_GENERATE_DEV_KEY").equals("false")) {
            assertThat(envNames(container)).as(overlay + ": keys from a folder").contains("OUTPOST_AUTH_KEYS_DIR");
            return;
        }
        Matcher byDefault = Pattern.compile("@WithDefault\\(\"([^\"]+)\"\\)\\s*Path devKeyDir\\(\\)")
                .matcher(Files.readString(Rendered.ROOT.resolve(
                        "auth-service/src/main/java/io/outpost/auth/config/AuthConfig.java")));
        assertThat(byDefault.find()).isTrue();
        String dir = envNames(container).contains("OUTPOST_AUTH_KEYS_DEV_KEY_DIR")
                ? env(container, "OUTPOST_AUTH_KEYS_DEV_KEY_DIR") : byDefault.group(1);
        assertThat(dir).as(overlay + ": the development key folder").startsWith("/");
        JsonNode pod = rendered.podSpec("auth-service");
        assertThat(Rendered.list(container.path("volumeMounts")))
                .as(overlay + ": %s is on a writable emptyDir", dir)
                .anyMatch(mount -> (dir + "/").startsWith(mount.path("mountPath").asText() + "/")
                        && !mount.path("readOnly").asBoolean()
                        && Rendered.list(pod.path("volumes")).stream().anyMatch(volume -> volume.path("name")
                                .equals(mount.path("name")) && volume.has("emptyDir")));
    }

    /**
     * docs/deploy.md says what a pod waits for before it is ready: the readiness checks the services register (by
     * their names, as /q/health/ready shows them), and no other (Kafka's checks are liveness or a gauge).
     */
    @Test
    void theDocumentedReadinessIsTheChecksTheServicesRegister() throws Exception {
        Pattern checkName = Pattern.compile("public static final String NAME = \"([^\"]+)\";");
        List<String> readiness = new ArrayList<>();
        List<String> others = new ArrayList<>();
        for (String module : List.of("service-support", "messaging-support", "auth-service", "notification-service",
                "history-service")) {
            try (Stream<Path> files = Files.walk(Rendered.ROOT.resolve(module).resolve("src/main/java"))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    String source = Files.readString(file);
                    Matcher name = checkName.matcher(source);
                    if (name.find() && source.contains("HealthCheckResponse.named(NAME)")) {
                        (source.contains("@Readiness\n") ? readiness : others).add(name.group(1));
                    }
                }
            }
        }
        assertThat(readiness).containsExactlyInAnyOrder("PostgreSQL", "Revocations", "Wake-up listener");
        String doc = Files.readString(Rendered.ROOT.resolve("docs/deploy.md"));
        Matcher paragraph = Pattern.compile("Pods wait in `Init`[^\\n]*(\\n[^\\n]+)*").matcher(doc);
        assertThat(paragraph.find()).isTrue();
        for (String check : readiness) {
            assertThat(paragraph.group()).contains("`" + check + "`");
        }
        for (String check : others) {
            assertThat(paragraph.group()).doesNotContain(check);
        }
        assertThat(paragraph.group()).contains("a pod that loses Kafka\nlater stays ready");
    }

    /** Live heap per held long poll with the image's collector settings (docs/benchmarks.md, "Long-poll memory"). */
    static final long HELD_POLL_HEAP_BYTES = 6656; // 6.5 KiB

    /**
     * Every JVM (each service and its {@code migrate} init container) has explicit sizes in {@code JAVA_TOOL_OPTIONS},
     * and what it may commit stays below the container's memory limit, by docs/deploy.md's "Memory budget": its row
     * names the container's limit and flags, and its columns add up to a total below the limit. notification-service's
     * held polls at {@code max-polls} need at most half its heap. Nothing replaces the image's own JVM options.
     */
    @ParameterizedTest
    @ValueSource(strings = { "dev", "prod" })
    void everyJvmFitsItsMemoryLimitByTheDocumentedBudget(String overlay) throws Exception {
        Rendered rendered = Rendered.overlay(overlay);
        String budget = ProdKafkaAndMonitoringTest.section(Files.readString(Rendered.ROOT.resolve("docs/deploy.md")),
                "## Memory budget");
        for (String service : SERVICES) {
            for (JsonNode container : List.of(rendered.container(service), rendered.initContainer(service, "migrate"))) {
                String name = container.path("name").asText();
                String what = overlay + " " + service + " " + name;
                Matcher row = Pattern.compile("\\n\\| " + (name.equals("migrate") ? "`migrate` \\(each\\)" : name)
                        + " \\|([^\\n]+)\\|\\n").matcher(budget);
                assertThat(row.find()).as(what + ": a row in docs/deploy.md's memory budget").isTrue();
                long[] mib = Stream.of(row.group(1).split("\\|")).map(String::strip).mapToLong(Long::parseLong).toArray();
                // limit, heap, GC structures, metaspace, code cache, direct, thread stacks, other native, total
                assertThat(mib).as(what).hasSize(9);
                Map<String, String> flags = new TreeMap<>();
                for (String flag : env(container, "JAVA_TOOL_OPTIONS").split(" ")) {
                    Matcher sized = Pattern.compile("-(Xmx|XX:\\w+=)(\\w+)").matcher(flag);
                    flags.put(sized.matches() ? sized.group(1) : flag, sized.matches() ? sized.group(2) : "");
                }
                assertThat(flags).as(what).containsKeys("-XX:+UseParallelGC", "-XX:+ExitOnOutOfMemoryError")
                        .containsEntry("XX:ActiveProcessorCount=", "2");
                assertThat(Rendered.quantityBytes(container.path("resources").path("limits").path("memory").asText()) >> 20)
                        .as(what + " limit").isEqualTo(mib[0]);
                assertThat(ServiceConfig.bytes(flags.get("Xmx")) >> 20).as(what + " heap").isEqualTo(mib[1]);
                // measured with 2 GC threads: 3.7 % of the heap + 10 MiB
                assertThat(mib[2]).as(what + ": ParallelGC's structures").isEqualTo(mib[1] / 16 + 8);
                assertThat(ServiceConfig.bytes(flags.get("XX:MaxMetaspaceSize=")) >> 20).as(what).isEqualTo(mib[3]);
                assertThat(env(container, "GC_MAX_METASPACE_SIZE")).as(what).isEqualTo(Long.toString(mib[3]));
                assertThat(ServiceConfig.bytes(flags.get("XX:ReservedCodeCacheSize=")) >> 20).as(what).isEqualTo(mib[4]);
                assertThat(ServiceConfig.bytes(flags.get("XX:MaxDirectMemorySize=")) >> 20).as(what).isEqualTo(mib[5]);
                assertThat(mib[8]).as(what + ": the total adds up").isEqualTo(LongStream.of(mib).skip(1).limit(7).sum());
                assertThat(mib[8]).as(what + ": the total stays below the limit").isLessThan(mib[0]);
                // the image's run-java.sh sets JAVA_OPTS_APPEND (the log manager): replacing it would drop that
                assertThat(envNames(container)).as(what).doesNotContain("JAVA_OPTS_APPEND", "JAVA_OPTS", "JAVA_OPTIONS");
            }
        }
        long maxPolls = Long.parseLong(Rendered.configEnv("notification-service").getProperty("OUTPOST_NOTIFICATION_MAX_POLLS"));
        String heap = env(rendered.container("notification-service"), "JAVA_TOOL_OPTIONS").replaceFirst(".*-Xmx(\\w+).*", "$1");
        assertThat(2 * maxPolls * HELD_POLL_HEAP_BYTES).as("twice the held polls' live heap at max-polls")
                .isLessThanOrEqualTo(ServiceConfig.bytes(heap));
    }

    /**
     * notification-service overrides the image's heap sizing for ParallelGC (its {@code GC_*} variables, read by
     * {@code run-java.sh}) with exactly the values docs/deploy.md's "Memory budget" names: the image's own keep
     * the heap so tight that held polls force a full collection every few seconds under load.
     */
    @ParameterizedTest
    @ValueSource(strings = { "dev", "prod" })
    void notificationServiceSizesItsHeapAsDocumented(String overlay) throws Exception {
        String budget = ProdKafkaAndMonitoringTest.section(Files.readString(Rendered.ROOT.resolve("docs/deploy.md")),
                "## Memory budget");
        Map<String, String> documented = new TreeMap<>();
        Matcher named = Pattern.compile("`(GC_(?:MIN_HEAP_FREE_RATIO|MAX_HEAP_FREE_RATIO|TIME_RATIO|"
                + "ADAPTIVE_SIZE_POLICY_WEIGHT))=(\\d+)`").matcher(budget);
        while (named.find()) {
            documented.put(named.group(1), named.group(2));
        }
        assertThat(documented).as("docs/deploy.md names the four").hasSize(4);
        JsonNode container = Rendered.overlay(overlay).container("notification-service");
        documented.forEach((name, value) -> assertThat(env(container, name)).as(overlay + " " + name).isEqualTo(value));
    }

    /** The documented minimum Kubernetes version runs every lifecycle handler the pods use. */
    @Test
    void theDocumentedKubernetesVersionHasEveryHandlerThePodsUse() throws Exception {
        Matcher version = Pattern.compile("Kubernetes cluster \\(≥ 1\\.(\\d+)")
                .matcher(Files.readString(Rendered.ROOT.resolve("docs/deploy.md")));
        assertThat(version.find()).as("docs/deploy.md names a minimum Kubernetes version").isTrue();
        for (String overlay : List.of("dev", "prod")) {
            Rendered rendered = Rendered.overlay(overlay);
            for (String service : SERVICES) {
                JsonNode preStop = rendered.container(service).path("lifecycle").path("preStop");
                if (preStop.has("sleep")) {
                    // KEP-3960: the sleep action is alpha (off) in 1.29, beta and on by default from 1.30
                    assertThat(Integer.parseInt(version.group(1))).as(overlay + " " + service).isGreaterThanOrEqualTo(30);
                }
            }
        }
    }

    /**
     * The Ingresses route the path prefixes to their services; each passes bodies up to exactly its services' limit
     * ({@code quarkus.http.limits.max-body-size}: nginx answers 413 itself, and never passes a body the service would
     * refuse by closing the connection); the long polls' Ingress waits longer than the longest poll, unbuffered.
     */
    @ParameterizedTest
    @ValueSource(strings = { "dev", "prod" })
    void ingressesRouteThePathPrefixesWithEachServicesBodyLimitAndPollTimeouts(String overlay) throws Exception {
        Map<String, String> routes = new TreeMap<>();
        for (JsonNode ingress : Rendered.overlay(overlay).ofKind("Ingress")) {
            JsonNode annotations = ingress.path("metadata").path("annotations");
            for (JsonNode path : Rendered.list(ingress.path("spec").path("rules").get(0).path("http").path("paths"))) {
                String service = path.path("backend").path("service").path("name").asText();
                routes.put(path.path("path").asText(), service);
                assertThat(ServiceConfig.bytes(annotations.path("nginx.ingress.kubernetes.io/proxy-body-size").asText()))
                        .as("%s: proxy-body-size of %s", overlay, path.path("path").asText())
                        .isEqualTo(ServiceConfig.of(service).maxBodyBytes());
                if (service.equals("notification-service")) {
                    assertThat(annotations.path("nginx.ingress.kubernetes.io/proxy-read-timeout").asInt()).isGreaterThan(900);
                    assertThat(annotations.path("nginx.ingress.kubernetes.io/proxy-send-timeout").asInt()).isGreaterThan(900);
                    assertThat(annotations.path("nginx.ingress.kubernetes.io/proxy-buffering").asText()).isEqualTo("off");
                }
            }
        }
        assertThat(routes).isEqualTo(Map.of("/users", "auth-service", "/.well-known", "auth-service",
                "/notification", "notification-service", "/v1/history", "history-service"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "prod" })
    void prodRunsKafkaWithEveryTopicAndPostgresWithTheSecretTheServicesRead(String overlay) throws Exception {
        Rendered rendered = Rendered.overlay(overlay);
        assertThat(rendered.ofKind("Kafka")).hasSize(1);
        assertThat(rendered.ofKind("KafkaTopic")).extracting(t -> t.path("spec").path("topicName").asText())
                .containsExactlyInAnyOrder(io.outpost.model.Topics.PLAYER_NOTIFICATIONS,
                        io.outpost.model.Topics.deadLetter(io.outpost.model.Topics.PLAYER_NOTIFICATIONS),
                        io.outpost.model.Topics.SANDBOX_CONFIG_TRANSACTIONS,
                        io.outpost.model.Topics.deadLetter(io.outpost.model.Topics.SANDBOX_CONFIG_TRANSACTIONS),
                        io.outpost.model.Topics.AUTH_TOKEN_REVOCATIONS, io.outpost.model.Topics.AUTH_AUDIT);
        JsonNode cluster = rendered.named("Cluster", "outpost-db");
        for (String service : SERVICES) {
            JsonNode container = rendered.named("Deployment", service).path("spec").path("template").path("spec")
                    .path("containers").get(0);
            assertThat(Rendered.list(cluster.path("spec").path("managed").path("roles")))
                    .extracting(r -> r.path("passwordSecret").path("name").asText())
                    .contains(Rendered.secretOf(container, "QUARKUS_DATASOURCE_PASSWORD"));
        }
        JsonNode auth = rendered.named("Deployment", "auth-service").path("spec").path("template").path("spec");
        assertThat(Rendered.list(auth.path("volumes"))).anyMatch(v -> v.path("secret").path("secretName").asText()
                .equals("auth-signing-keys"));
        assertThat(env(auth.path("containers").get(0), "OUTPOST_AUTH_KEYS_GENERATE_DEV_KEY")).isEqualTo("false");
    }

    private static List<String> envNames(JsonNode container) {
        return Rendered.envNames(container);
    }

    private static String env(JsonNode container, String name) {
        return Rendered.env(container, name);
    }

    private static String probe(JsonNode container, String probe) {
        JsonNode get = container.path(probe).path("httpGet");
        assertThat(get.path("port").asText()).as(probe + " port").isEqualTo("http");
        return get.path("path").asText();
    }

    private static List<String> configMapKeys(Rendered rendered, String name) throws IOException {
        List<String> keys = new ArrayList<>();
        rendered.named("ConfigMap", name).path("data").fieldNames().forEachRemaining(keys::add);
        return keys;
    }
}
