package io.outpost.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.model.Topics;

/**
 * The prod overlay's Kafka (TLS + SCRAM listener, a KafkaUser per client whose ACLs reach only its topics) and
 * monitoring (ServiceMonitor, the alerts that matter on the agreed metric names, a Grafana dashboard).
 */
class ProdKafkaAndMonitoringTest {

    /** The metric names the services publish (agreed interfaces), plus Quarkus's HTTP server timer. */
    static final Set<String> METRICS = Set.of("outpost_ingest_records_stored_total",
            "outpost_ingest_records_dead_lettered_total", "outpost_ingest_batches_retried_total",
            "outpost_ingest_consumer_lag", "outpost_ingest_last_commit_age_seconds", "outpost_kafka_reachable",
            "outpost_notification_polls_held", "outpost_notification_polls_max", "outpost_auth_refusals_total",
            "outpost_auth_tokens_issued_total", "outpost_auth_token_refusals_total", "outpost_auth_throttled_total",
            "http_server_requests_seconds_count");
    private static final Pattern METRIC = Pattern.compile("\\b(outpost_[a-z_]+|http_server_[a-z_]+)\\b");

    static Rendered prod;

    @BeforeAll
    static void render() throws Exception {
        prod = Rendered.overlay("prod");
    }

    @Test
    void everyListenerEncryptsAndAuthenticatesAndAclsAreEnforced() {
        JsonNode kafka = prod.named("Kafka", "outpost").path("spec").path("kafka");
        assertThat(kafka.path("listeners")).isNotEmpty();
        for (JsonNode listener : Rendered.list(kafka.path("listeners"))) {
            assertThat(listener.path("tls").asBoolean()).as(listener.path("name").asText()).isTrue();
            assertThat(listener.path("authentication").path("type").asText()).isIn("scram-sha-512", "tls");
        }
        assertThat(kafka.path("authorization").path("type").asText()).isEqualTo("simple");
        String bootstrap = prod.named("ConfigMap", "outpost-config").path("data").path("kafka-bootstrap-servers").asText();
        assertThat(bootstrap).isEqualTo("outpost-kafka-bootstrap:" + kafka.path("listeners").get(0).path("port").asInt());
    }

    @Test
    void eachServiceConnectsAsItsOwnUserWhoseAclsReachOnlyItsTopics() {
        String notifications = Topics.PLAYER_NOTIFICATIONS;
        String transactions = Topics.SANDBOX_CONFIG_TRANSACTIONS;
        assertThat(acls("notification-service")).containsExactlyInAnyOrder("topic " + notifications + " Read",
                "topic " + notifications + " Describe", "topic " + notifications + " Write",
                "topic " + Topics.deadLetter(notifications) + " Write",
                "topic " + Topics.deadLetter(notifications) + " Describe", "group outpost-notification Read",
                "cluster  Describe");
        assertThat(acls("history-service")).containsExactlyInAnyOrder("topic " + transactions + " Read",
                "topic " + transactions + " Describe", "topic " + Topics.deadLetter(transactions) + " Write",
                "topic " + Topics.deadLetter(transactions) + " Describe", "group outpost-history Read",
                "cluster  Describe");
        assertThat(acls("notification-producer")).containsExactlyInAnyOrder("topic " + notifications + " Write",
                "topic " + notifications + " Describe");
        assertThat(acls("sandbox-config-producer")).containsExactlyInAnyOrder("topic " + transactions + " Write",
                "topic " + transactions + " Describe");
        for (String service : List.of("notification-service", "history-service")) {
            JsonNode container = prod.container(service);
            assertThat(Rendered.env(container, "KAFKA_SECURITY_PROTOCOL")).isEqualTo("SASL_SSL");
            assertThat(Rendered.env(container, "KAFKA_SASL_MECHANISM")).isEqualTo("SCRAM-SHA-512");
            assertThat(Rendered.secretOf(container, "KAFKA_SASL_JAAS_CONFIG")).isEqualTo(service);
            assertThat(Rendered.env(container, "KAFKA_SSL_TRUSTSTORE_LOCATION")).startsWith("/etc/outpost/kafka-ca/");
            assertThat(Rendered.list(prod.podSpec(service).path("volumes")))
                    .anyMatch(v -> v.path("secret").path("secretName").asText().equals("outpost-cluster-ca-cert"));
        }
    }

    private static List<String> acls(String user) {
        JsonNode spec = prod.named("KafkaUser", user).path("spec");
        assertThat(spec.path("authentication").path("type").asText()).isEqualTo("scram-sha-512");
        assertThat(spec.path("authorization").path("type").asText()).isEqualTo("simple");
        List<String> acls = new ArrayList<>();
        for (JsonNode acl : Rendered.list(spec.path("authorization").path("acls"))) {
            JsonNode resource = acl.path("resource");
            assertThat(resource.path("patternType").asText("literal")).isEqualTo("literal");
            for (JsonNode operation : Rendered.list(acl.path("operations"))) {
                acls.add(resource.path("type").asText() + " " + resource.path("name").asText() + " " + operation.asText());
            }
        }
        return acls;
    }

    @Test
    void prometheusScrapesEveryServiceOnItsPublicPort() {
        JsonNode monitor = prod.named("ServiceMonitor", "outpost").path("spec");
        JsonNode endpoint = monitor.path("endpoints").get(0);
        assertThat(endpoint.path("path").asText()).isEqualTo("/q/metrics");
        for (String service : ManifestsTest.SERVICES) {
            JsonNode labels = prod.named("Service", service).path("metadata").path("labels");
            monitor.path("selector").path("matchLabels").fields().forEachRemaining(
                    label -> assertThat(labels.path(label.getKey()).asText()).as(service).isEqualTo(label.getValue().asText()));
            assertThat(Rendered.list(prod.named("Service", service).path("spec").path("ports")))
                    .extracting(p -> p.path("name").asText()).contains(endpoint.path("port").asText());
        }
    }

    @Test
    void theAlertsThatMatterUseOnlyPublishedMetrics() {
        Map<String, String> alerts = Rendered.list(prod.named("PrometheusRule", "outpost").path("spec").path("groups"))
                .stream().flatMap(g -> Rendered.list(g.path("rules")).stream())
                .collect(Collectors.toMap(r -> r.path("alert").asText(), r -> r.path("expr").asText()));
        assertThat(alerts.keySet()).contains("OutpostIngestStalled", "OutpostDeadLettersGrowing",
                "OutpostConsumerLagHigh", "OutpostHttp5xxRate", "OutpostPollsNearLimit", "OutpostTokenRefusalsSpiking");
        assertThat(alerts.get("OutpostIngestStalled")).contains("outpost_ingest_last_commit_age_seconds");
        assertThat(alerts.get("OutpostDeadLettersGrowing")).contains("outpost_ingest_records_dead_lettered_total");
        assertThat(alerts.get("OutpostConsumerLagHigh")).contains("outpost_ingest_consumer_lag");
        assertThat(alerts.get("OutpostHttp5xxRate")).contains("status=~\"5..\"");
        assertThat(alerts.get("OutpostPollsNearLimit")).contains("outpost_notification_polls_held")
                .contains("outpost_notification_polls_max");
        assertThat(alerts.get("OutpostTokenRefusalsSpiking")).contains("outpost_auth_token_refusals_total");
        assertThat(metricsIn(String.join("\n", alerts.values()))).isSubsetOf(METRICS);
    }

    @Test
    void theDashboardIsValidJsonOnPublishedMetrics() throws Exception {
        JsonNode configMap = prod.named("ConfigMap", "outpost-dashboard");
        assertThat(configMap.path("metadata").path("labels").path("grafana_dashboard").asText()).isEqualTo("1");
        JsonNode dashboard = new ObjectMapper().readTree(configMap.path("data").path("outpost.json").asText());
        List<String> queries = Rendered.list(dashboard.path("panels")).stream()
                .flatMap(p -> Rendered.list(p.path("targets")).stream()).map(t -> t.path("expr").asText()).toList();
        assertThat(queries).hasSizeGreaterThanOrEqualTo(10);
        assertThat(metricsIn(String.join("\n", queries))).isSubsetOf(METRICS)
                .contains("outpost_notification_polls_held", "outpost_ingest_consumer_lag",
                        "outpost_auth_token_refusals_total", "http_server_requests_seconds_count");
    }

    private static Set<String> metricsIn(String expressions) {
        Set<String> names = new TreeSet<>();
        Matcher matcher = METRIC.matcher(expressions);
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }
}
