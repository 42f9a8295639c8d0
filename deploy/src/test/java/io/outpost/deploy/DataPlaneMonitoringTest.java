package io.outpost.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Reader;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/**
 * Kafka's and PostgreSQL's own metrics are exported, scraped and alerted on (the alerts' PromQL is evaluated by
 * promtool in {@link ProdKafkaAndMonitoringTest#theAlertsFireOnTheSeriesOfTheirPromtoolTests}).
 */
class DataPlaneMonitoringTest {

    static final List<String> INGEST_GROUPS = List.of("outpost-notification", "outpost-history");
    static Rendered prod;

    @BeforeAll
    static void render() throws Exception {
        prod = Rendered.overlay("prod");
    }

    /** The brokers export JMX metrics by the shipped rules; Kafka Exporter reports each ingest group's lag. */
    @Test
    void kafkaExportsItsMetricsAndEachIngestGroupsLag() throws Exception {
        JsonNode kafka = prod.named("Kafka", "outpost").path("spec");
        JsonNode metrics = kafka.path("kafka").path("metricsConfig");
        assertThat(metrics.path("type").asText()).isEqualTo("jmxPrometheusExporter");
        JsonNode ref = metrics.path("valueFrom").path("configMapKeyRef");
        JsonNode rules = new YAMLMapper().readTree(prod.named("ConfigMap", ref.path("name").asText()).path("data")
                .path(ref.path("key").asText()).asText());
        assertThat(rules.path("lowercaseOutputName").asBoolean()).isTrue();
        assertThat(Rendered.list(rules.path("rules"))).extracting(r -> r.path("name").asText())
                .contains("kafka_$1_$2_$3");
        assertThat(Rendered.configEnv("notification-service").getProperty("OUTPOST_NOTIFICATION_CONSUMER_GROUP"))
                .isEqualTo(INGEST_GROUPS.get(0));
        Pattern groups = Pattern.compile(kafka.path("kafkaExporter").path("groupRegex").asText());
        for (String group : INGEST_GROUPS) {
            assertThat(groups.matcher(group).matches()).as(group).isTrue();
        }
        assertThat(groups.matcher("outpost-dlq-replay").matches()).isFalse();
    }

    /** PodMonitors select the Kafka cluster's pods and the PostgreSQL instances, labelled for the Prometheus. */
    @Test
    void prometheusScrapesKafkaAndPostgresql() throws Exception {
        Properties parameters = new Properties();
        try (Reader reader = Files.newBufferedReader(ProdOverlayTest.prodFile("parameters.env"))) {
            parameters.load(reader);
        }
        JsonNode kafka = prod.named("PodMonitor", "outpost-kafka");
        assertThat(kafka.path("spec").path("selector").path("matchLabels").path("strimzi.io/cluster").asText())
                .isEqualTo(prod.named("Kafka", "outpost").path("metadata").path("name").asText());
        assertThat(kafka.path("spec").path("podMetricsEndpoints").get(0).path("port").asText()).isEqualTo("tcp-prometheus");
        JsonNode db = prod.named("PodMonitor", "outpost-db");
        assertThat(db.path("spec").path("selector").path("matchLabels").path("cnpg.io/cluster").asText())
                .isEqualTo(prod.named("Cluster", "outpost-db").path("metadata").path("name").asText());
        assertThat(db.path("spec").path("podMetricsEndpoints").get(0).path("port").asText()).isEqualTo("metrics");
        for (JsonNode monitor : prod.ofKind("PodMonitor")) {
            assertThat(monitor.path("metadata").path("labels").path("release").asText())
                    .isEqualTo(parameters.getProperty("prometheus-release"));
        }
    }

    /** The day-one alerts of the data plane exist, on the exporters' metric names, each ingest group named. */
    @Test
    void theDataPlaneHasItsDayOneAlerts() {
        Map<String, String> alerts = Rendered.list(prod.named("PrometheusRule", "outpost").path("spec").path("groups"))
                .stream().flatMap(g -> Rendered.list(g.path("rules")).stream())
                .collect(Collectors.toMap(r -> r.path("alert").asText(), r -> r.path("expr").asText()));
        assertThat(alerts.get("OutpostKafkaOfflinePartitions")).contains("kafka_controller_kafkacontroller_offlinepartitionscount");
        assertThat(alerts.get("OutpostKafkaUnderReplicatedPartitions"))
                .contains("kafka_server_replicamanager_underreplicatedpartitions");
        assertThat(alerts.get("OutpostKafkaConsumerGroupLag")).contains("kafka_consumergroup_lag")
                .contains("by (namespace, consumergroup)").contains(String.join("|", INGEST_GROUPS));
        assertThat(alerts.get("OutpostPostgresReplicationLag")).contains("cnpg_pg_replication_lag");
        assertThat(alerts.get("OutpostPostgresBackupTooOld"))
                .contains("barman_cloud_cloudnative_pg_io_last_available_backup_timestamp");
        assertThat(alerts.get("OutpostPostgresConnectionsNearLimit")).contains("cnpg_backends_total")
                .contains("cnpg_pg_settings_setting{name=\"max_connections\"}");
    }
}
