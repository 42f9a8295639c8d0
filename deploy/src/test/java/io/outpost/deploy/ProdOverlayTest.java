package io.outpost.deploy;

import static io.outpost.deploy.ManifestsTest.SERVICES;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What makes the prod overlay start and safe (issue 11, point 3), one test per point, each failing when the point
 * is taken out: readable keys, TLS from parameters, least-privilege database roles, migrations before the service,
 * connections that fit the database, immutable images, spread replicas, held-poll scaling, backups.
 * Kafka and monitoring: {@link ProdKafkaAndMonitoringTest}.
 */
class ProdOverlayTest {

    static Rendered prod;
    static Properties parameters;

    @BeforeAll
    static void render() throws Exception {
        prod = Rendered.overlay("prod");
        parameters = new Properties();
        try (Reader reader = Files.newBufferedReader(Rendered.DEPLOY.resolve("overlays/prod/parameters.env"))) {
            parameters.load(reader);
        }
    }

    @Test
    void signingKeysAreReadableByTheServiceUserOnly() {
        JsonNode pod = prod.podSpec("auth-service");
        JsonNode keys = Rendered.list(pod.path("volumes")).stream()
                .filter(v -> v.path("secret").path("secretName").asText().equals("auth-signing-keys")).findFirst()
                .orElseThrow().path("secret");
        int mode = keys.path("defaultMode").asInt();
        long uid = pod.path("securityContext").path("runAsUser").asLong();
        // files are root-owned with the pod's fsGroup as group: the group bit is what lets uid 185 read them
        assertThat(pod.path("securityContext").path("fsGroup").asLong()).isEqualTo(uid);
        assertThat(pod.path("securityContext").path("runAsGroup").asLong()).isEqualTo(uid);
        assertThat(mode & 0040).as("group-readable").isNotZero();
        assertThat(mode & 0007).as("not world-readable").isZero();
        assertThat(mode & 0222).as("read-only").isZero();
    }

    /**
     * Rotation (docs/auth.md, "Keys and rotation") needs no edit and no rollout: the key folder is the Secret mounted
     * whole (a subPath mount is never updated in place), and nothing pins the signer. The operator's pin stays
     * possible: {@code active-kid} in the ConfigMap {@code auth-signing}, absent by default.
     */
    @Test
    void keyRotationRunsByItselfWithNoSignerPinned() {
        JsonNode container = prod.container("auth-service");
        String dir = Rendered.env(container, "OUTPOST_AUTH_KEYS_DIR");
        JsonNode mount = Rendered.list(container.path("volumeMounts")).stream()
                .filter(m -> m.path("mountPath").asText().equals(dir)).findFirst().orElseThrow();
        assertThat(mount.has("subPath") || mount.has("subPathExpr")).as("keys mounted whole").isFalse();
        assertThat(Rendered.list(prod.podSpec("auth-service").path("volumes")))
                .filteredOn(v -> v.path("name").asText().equals(mount.path("name").asText())).singleElement()
                .extracting(v -> v.path("secret").path("secretName").asText()).isEqualTo("auth-signing-keys");
        assertThat(Rendered.envNames(container)).doesNotContain("OUTPOST_AUTH_KEYS_RELOAD_INTERVAL");
        JsonNode pin = Rendered.envEntry(container, "OUTPOST_AUTH_KEYS_ACTIVE_KID");
        assertThat(pin.has("value")).as("a literal pin").isFalse();
        JsonNode ref = pin.path("valueFrom").path("configMapKeyRef");
        assertThat(ref.path("optional").asBoolean()).as("the override may be absent").isTrue();
        assertThat(prod.named("ConfigMap", ref.path("name").asText()).path("data").path(ref.path("key").asText())
                .isMissingNode()).as("no signer pinned").isTrue();
    }

    @Test
    void theIngressesServeTlsForTheParameterisedHost() {
        String host = parameters.getProperty("host");
        assertThat(prod.ofKind("Ingress")).hasSizeGreaterThan(1);
        for (JsonNode ingress : prod.ofKind("Ingress")) {
            String name = ingress.path("metadata").path("name").asText();
            assertThat(ingress.path("spec").path("rules").get(0).path("host").asText()).as(name).isEqualTo(host);
            JsonNode tls = ingress.path("spec").path("tls").get(0);
            assertThat(Rendered.list(tls.path("hosts"))).extracting(JsonNode::asText).as(name).containsExactly(host);
            assertThat(tls.path("secretName").asText()).as(name).isEqualTo(parameters.getProperty("tls-secret"));
            assertThat(ingress.path("metadata").path("annotations").path("nginx.ingress.kubernetes.io/force-ssl-redirect")
                    .asText()).as(name).isEqualTo("true");
        }
        // one Ingress asks cert-manager for the Secret: two would both claim its Certificate
        assertThat(prod.ofKind("Ingress")).filteredOn(i -> i.path("metadata").path("annotations")
                .has("cert-manager.io/cluster-issuer")).singleElement()
                .extracting(i -> i.path("metadata").path("annotations").path("cert-manager.io/cluster-issuer").asText())
                .isEqualTo(parameters.getProperty("cluster-issuer"));
        assertThat(prod.named("ConfigMap", "outpost-config").path("data").path("public-base-url").asText())
                .isEqualTo("https://" + host);
        assertThat(prod.objects()).noneMatch(o -> o.toString().contains("PARAMETER"));
        assertThat(prod.ofKind("ConfigMap")).noneMatch(c -> c.path("metadata").path("name").asText()
                .equals("outpost-parameters"));
    }

    @Test
    void eachServiceRunsAsItsRuntimeRoleAndMigratesAsItsSchemaOwner() throws Exception {
        JsonNode roles = prod.named("Cluster", "outpost-db").path("spec").path("managed").path("roles");
        Set<String> passwordSecrets = Set.copyOf(Rendered.list(roles).stream()
                .map(r -> r.path("passwordSecret").path("name").asText()).toList());
        String sql = Files.readString(Rendered.DEPLOY.resolve("overlays/prod/database/roles.sql"));
        for (String service : SERVICES) {
            String schema = service.substring(0, service.indexOf('-'));
            JsonNode runtime = prod.container(service);
            JsonNode migrate = prod.initContainer(service, "migrate");
            assertThat(Rendered.secretOf(runtime, "QUARKUS_DATASOURCE_USERNAME")).isEqualTo(service + "-db");
            assertThat(Rendered.secretOf(migrate, "QUARKUS_DATASOURCE_USERNAME")).isEqualTo(service + "-db-migrator");
            assertThat(passwordSecrets).contains(service + "-db", service + "-db-migrator");
            assertThat(sql).contains("CREATE SCHEMA IF NOT EXISTS " + schema + " AUTHORIZATION " + schema + "_migrator;");
            assertThat(sql).contains("GRANT USAGE ON SCHEMA " + schema + " TO " + schema + "_app;");
        }
        // the cluster runs that SQL at bootstrap
        JsonNode refs = prod.named("Cluster", "outpost-db").path("spec").path("bootstrap").path("initdb")
                .path("postInitApplicationSQLRefs").path("configMapRefs").get(0);
        assertThat(prod.named("ConfigMap", refs.path("name").asText()).path("data").path(refs.path("key").asText())
                .asText()).isEqualTo(sql);
        // history's runtime role appends and never changes a transaction
        Matcher historyGrants = Pattern.compile("GRANT ([A-Z, ]+) ON TABLES TO history_app").matcher(sql);
        assertThat(historyGrants.find()).isTrue();
        assertThat(historyGrants.group(1)).isEqualTo("SELECT, INSERT");
        assertThat(sql).doesNotContainPattern("GRANT [A-Z, ]*(UPDATE|DELETE|TRUNCATE)[A-Z, ]* ON [A-Z ]*TABLES? [^;]*history_app");
        String grants = Files.readString(Rendered.ROOT.resolve(
                "history-service/src/main/resources/db/migration/R__runtime_role_grants.sql"));
        assertThat(grants).contains("GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA history TO history_app;")
                .contains("GRANT UPDATE ON history.listing_total, history.name_total TO history_app;")
                .doesNotContain("DELETE").doesNotContain("config_transaction");
    }

    @Test
    void migrationsRunOnceBeforeTheServiceWhichOnlyValidates() {
        for (String service : SERVICES) {
            JsonNode runtime = prod.container(service);
            JsonNode migrate = prod.initContainer(service, "migrate");
            assertThat(migrate.path("image").asText()).isEqualTo(runtime.path("image").asText());
            assertThat(Rendered.env(migrate, "QUARKUS_INIT_AND_EXIT")).isEqualTo("true");
            assertThat(Rendered.env(migrate, "QUARKUS_FLYWAY_MIGRATE_AT_START")).isEqualTo("true");
            assertThat(Rendered.env(runtime, "QUARKUS_FLYWAY_MIGRATE_AT_START")).isEqualTo("false");
            assertThat(Rendered.env(runtime, "QUARKUS_FLYWAY_VALIDATE_AT_START")).isEqualTo("true");
            assertThat(migrate.path("resources").path("limits").path("memory").asText()).isNotEmpty();
        }
    }

    @Test
    void everyPoolAtItsAutoscalingMaximumFitsTheDatabase() throws Exception {
        JsonNode postgres = prod.named("Cluster", "outpost-db").path("spec").path("postgresql").path("parameters");
        int budget = postgres.path("max_connections").asInt() - postgres.path("superuser_reserved_connections").asInt()
                - 3 * 2; // replication and the operator's own connections, per instance
        String connections = Files.readString(Rendered.ROOT.resolve(
                "notification-service/src/main/java/io/outpost/notification/store/DatabaseConnections.java"));
        Matcher ingest = Pattern.compile("INGEST_CONNECTIONS = (\\d+);").matcher(connections);
        assertThat(ingest.find()).isTrue();
        int needed = 0;
        for (String service : SERVICES) {
            JsonNode container = prod.container(service);
            int perPod = Integer.parseInt(Rendered.env(container, "QUARKUS_DATASOURCE_REACTIVE_MAX_SIZE"))
                    + Integer.parseInt(Rendered.env(container, "QUARKUS_DATASOURCE_JDBC_MAX_SIZE"))
                    // notification-service: its ingest pool and the LISTEN connection
                    + (service.equals("notification-service") ? Integer.parseInt(ingest.group(1)) + 1 : 0);
            JsonNode deployment = prod.named("Deployment", service).path("spec");
            int pods = prod.named("HorizontalPodAutoscaler", service).path("spec").path("maxReplicas").asInt()
                    + deployment.path("strategy").path("rollingUpdate").path("maxSurge").asInt();
            needed += pods * perPod;
        }
        assertThat(needed).as("connections at the HPA maxima plus a rollout's surge").isLessThanOrEqualTo(budget);
    }

    @Test
    void imagesComeFromTheRegistryAtAnImmutableVersion() {
        for (String service : SERVICES) {
            for (JsonNode container : Rendered.list(prod.podSpec(service).path("containers"))) {
                String image = container.path("image").asText();
                assertThat(image).as(service).matches("[a-z0-9.-]+(:\\d+)?/([\\w.-]+/)*outpost/" + service
                        + "(:\\d+\\.\\d+\\.\\d+([-+][\\w.]+)?|@sha256:[0-9a-f]{64})")
                        .doesNotContainIgnoringCase("snapshot").doesNotEndWith(":latest");
            }
        }
    }

    @Test
    void replicasAreSpreadOverNodesAndZones() {
        for (String service : SERVICES) {
            JsonNode pod = prod.podSpec(service);
            assertThat(Rendered.list(pod.path("topologySpreadConstraints"))).as(service)
                    .extracting(c -> c.path("topologyKey").asText() + " "
                            + c.path("labelSelector").path("matchLabels").path("app.kubernetes.io/name").asText())
                    .containsExactlyInAnyOrder("kubernetes.io/hostname " + service,
                            "topology.kubernetes.io/zone " + service);
        }
    }

    /**
     * notification-service scales on its held polls (below its cap), served by the prometheus-adapter rule the overlay
     * ships for exactly that metric, and on CPU beside it: the HPA follows the larger, and CPU alone while the
     * held-polls metric cannot be had.
     */
    @Test
    void notificationServiceScalesOnHeldPollsBelowItsCapWithACpuFallback() throws Exception {
        JsonNode metrics = prod.named("HorizontalPodAutoscaler", "notification-service").path("spec").path("metrics");
        assertThat(metrics).hasSize(2);
        JsonNode pods = Rendered.list(metrics).stream().filter(m -> m.path("type").asText().equals("Pods"))
                .findFirst().orElseThrow();
        String metric = pods.path("pods").path("metric").path("name").asText();
        assertThat(metric).isEqualTo("outpost_notification_polls_held");
        Properties config = Rendered.configEnv("notification-service");
        long cap = Long.parseLong(config.getProperty("OUTPOST_NOTIFICATION_MAX_POLLS"));
        assertThat(Long.parseLong(pods.path("pods").path("target").path("averageValue").asText())).isLessThan(cap);
        JsonNode cpu = Rendered.list(metrics).stream().filter(m -> m.path("type").asText().equals("Resource"))
                .findFirst().orElseThrow().path("resource");
        assertThat(cpu.path("name").asText()).isEqualTo("cpu");
        assertThat(cpu.path("target").path("averageUtilization").asInt()).isBetween(50, 90);
        assertThat(prod.container("notification-service").path("resources").path("requests").path("cpu").asText())
                .as("a CPU request, which the utilisation is measured against").isNotEmpty();

        JsonNode adapter = new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readTree(
                prodFile("monitoring/prometheus-adapter-values.yaml").toFile());
        JsonNode rule = adapter.path("rules").path("custom").get(0);
        assertThat(rule.path("name").path("as").asText()).isEqualTo(metric);
        assertThat(rule.path("seriesQuery").asText()).startsWith(metric + "{");
        assertThat(rule.path("resources").path("overrides").path("pod").path("resource").asText()).isEqualTo("pod");
        assertThat(rule.path("metricsQuery").asText()).contains("by (<<.GroupBy>>)");
    }

    /**
     * Backups and WAL go through the Barman Cloud plugin (not the deprecated in-tree barmanObjectStore) to the
     * parameterised object store, the daily ScheduledBackup by the plugin's method too; the restore drill in
     * docs/operations.md restores from that same store.
     */
    @Test
    void theDatabaseIsBackedUpThroughThePluginToTheParameterisedObjectStore() throws Exception {
        JsonNode cluster = prod.named("Cluster", "outpost-db").path("spec");
        assertThat(cluster.has("backup")).as("no in-tree barmanObjectStore").isFalse();
        JsonNode plugin = cluster.path("plugins").get(0);
        assertThat(plugin.path("name").asText()).isEqualTo("barman-cloud.cloudnative-pg.io");
        assertThat(plugin.path("isWALArchiver").asBoolean()).isTrue();
        String store = plugin.path("parameters").path("barmanObjectName").asText();
        JsonNode objectStore = prod.named("ObjectStore", store).path("spec");
        assertThat(objectStore.path("configuration").path("destinationPath").asText())
                .isEqualTo(parameters.getProperty("backup-destination"));
        assertThat(objectStore.path("retentionPolicy").asText()).matches("\\d+[dwm]");
        assertThat(objectStore.path("configuration").path("s3Credentials").path("accessKeyId").path("name").asText())
                .isNotEmpty();
        JsonNode scheduled = prod.named("ScheduledBackup", "outpost-db-daily").path("spec");
        assertThat(scheduled.path("cluster").path("name").asText()).isEqualTo("outpost-db");
        assertThat(scheduled.path("schedule").asText().split(" ")).hasSize(6);
        assertThat(scheduled.path("method").asText()).isEqualTo("plugin");
        assertThat(scheduled.path("pluginConfiguration").path("name").asText()).isEqualTo(plugin.path("name").asText());
        String drill = ProdKafkaAndMonitoringTest.section(Files.readString(Rendered.ROOT.resolve("docs/operations.md")),
                "### Restore drill");
        assertThat(drill).contains("barmanObjectName: " + store).contains("kubectl cnpg backup outpost-db --method plugin")
                .contains("name: barman-cloud.cloudnative-pg.io");
    }

    static Path prodFile(String name) {
        return Rendered.DEPLOY.resolve("overlays/prod").resolve(name);
    }
}
