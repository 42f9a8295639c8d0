package io.outpost.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.outpost.model.Topics;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.user.KafkaUser;
import io.strimzi.api.kafka.model.user.KafkaUserAuthorizationSimple;
import io.strimzi.api.kafka.model.user.KafkaUserScramSha512ClientAuthentication;
import io.strimzi.api.kafka.model.user.KafkaUserSpec;
import io.strimzi.api.kafka.model.user.acl.AclResourcePatternType;
import io.strimzi.api.kafka.model.user.acl.AclRule;
import io.strimzi.api.kafka.model.user.acl.AclRuleClusterResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleGroupResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleTopicResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleType;

/**
 * The prod overlay's Kafka (TLS + SCRAM listener, a KafkaTopic per topic, a KafkaUser per client whose ACLs reach
 * only its topics, every client of the services configured for it) and monitoring (ServiceMonitor, the alerts that
 * matter on metric names the services register, a Grafana dashboard).
 */
class ProdKafkaAndMonitoringTest {

    /** The metric names the services publish (agreed interfaces), plus Quarkus's HTTP server timer and JVM uptime. */
    static final Set<String> METRICS = Set.of("outpost_ingest_records_stored_total",
            "outpost_ingest_records_dead_lettered_total", "outpost_ingest_batches_retried_total",
            "outpost_ingest_consumer_lag", "outpost_ingest_last_commit_age_seconds", "outpost_kafka_reachable",
            "outpost_ingest_record_delay_seconds_bucket", "outpost_ingest_batch_store_seconds_bucket",
            "outpost_notification_polls_held", "outpost_notification_polls_max", "outpost_auth_refusals_total",
            "outpost_auth_tokens_issued_total", "outpost_auth_token_refusals_total", "outpost_auth_throttled_total",
            "outpost_auth_revocation_feed_connected", "outpost_auth_revocation_feed_lag", "outpost_auth_outbox_pending",
            "outpost_auth_outbox_oldest_age_seconds", "http_server_requests_seconds_count", "process_uptime_seconds");
    private static final Pattern METRIC = Pattern.compile("\\b(outpost_[a-z_]+|http_server_[a-z_]+|process_[a-z_]+)\\b");

    /** The people on call's KafkaUser, for DeadLetterTool, and the prefix of the consumer groups it may use. */
    static final String DLQ_OPERATOR = "outpost-dlq-operator";
    static final String DLQ_GROUPS = "outpost-dlq-";

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
        // every verifier reads the revocation feed with all partitions assigned and no consumer group: Read, no group
        String feed = "topic " + Topics.AUTH_TOKEN_REVOCATIONS + " Read";
        String feedDescribe = "topic " + Topics.AUTH_TOKEN_REVOCATIONS + " Describe";
        assertThat(acls("notification-service")).containsExactlyInAnyOrder("topic " + notifications + " Read",
                "topic " + notifications + " Describe", "topic " + notifications + " Write",
                "topic " + Topics.deadLetter(notifications) + " Write",
                "topic " + Topics.deadLetter(notifications) + " Describe", "group outpost-notification Read",
                "cluster Describe", feed, feedDescribe);
        assertThat(acls("history-service")).containsExactlyInAnyOrder("topic " + transactions + " Read",
                "topic " + transactions + " Describe", "topic " + Topics.deadLetter(transactions) + " Write",
                "topic " + Topics.deadLetter(transactions) + " Describe", "group outpost-history Read",
                "cluster Describe", feed, feedDescribe);
        // auth-service writes both of its topics (the outbox relay) and reads the feed (its own verifier); it
        // creates no topic, and no one else may write the revocation topic: a record there is believed
        assertThat(acls("auth-service")).containsExactlyInAnyOrder("topic " + Topics.AUTH_TOKEN_REVOCATIONS + " Write",
                feed, feedDescribe, "topic " + Topics.AUTH_AUDIT + " Write", "topic " + Topics.AUTH_AUDIT + " Describe");
        assertThat(acls("notification-producer")).containsExactlyInAnyOrder("topic " + notifications + " Write",
                "topic " + notifications + " Describe");
        assertThat(acls("sandbox-config-producer")).containsExactlyInAnyOrder("topic " + transactions + " Write",
                "topic " + transactions + " Describe");
        for (String service : ManifestsTest.SERVICES) {
            JsonNode container = prod.container(service);
            assertThat(Rendered.env(container, "KAFKA_SECURITY_PROTOCOL")).as(service).isEqualTo("SASL_SSL");
            assertThat(Rendered.env(container, "KAFKA_SASL_MECHANISM")).as(service).isEqualTo("SCRAM-SHA-512");
            assertThat(Rendered.secretOf(container, "KAFKA_SASL_JAAS_CONFIG")).as(service).isEqualTo(service);
            assertThat(Rendered.env(container, "KAFKA_SSL_TRUSTSTORE_LOCATION")).as(service)
                    .startsWith("/etc/outpost/kafka-ca/");
            assertThat(Rendered.list(prod.podSpec(service).path("volumes"))).as(service)
                    .anyMatch(v -> v.path("secret").path("secretName").asText().equals("outpost-cluster-ca-cert"));
        }
    }

    /**
     * The people on call run DeadLetterTool as their own user (docs/operations.md, "Dead letters"): it reads each
     * {@code .dlq} topic and writes the topic the letters came from; a replay commits its progress in a consumer
     * group ({@code outpost-dlq-replay} or the operator's {@code --group}; a list joins none): one prefix for them,
     * nothing else.
     */
    @Test
    void theDeadLetterOperatorMayDoWhatDeadLetterToolDoesAndNothingElse() throws Exception {
        String tool = Files.readString(Rendered.ROOT.resolve(
                "messaging-support/src/main/java/io/outpost/messaging/DeadLetterTool.java"));
        Set<String> groups = found(Pattern.compile("\"(outpost-dlq-[a-z-]*)\""), tool);
        assertThat(groups).as("the groups DeadLetterTool names").contains("outpost-dlq-replay")
                .allMatch(group -> group.startsWith(DLQ_GROUPS));
        List<String> expected = new ArrayList<>(List.of("group " + DLQ_GROUPS + "* Read"));
        for (String topic : List.of(Topics.PLAYER_NOTIFICATIONS, Topics.SANDBOX_CONFIG_TRANSACTIONS)) {
            expected.addAll(List.of("topic " + Topics.deadLetter(topic) + " Read",
                    "topic " + Topics.deadLetter(topic) + " Describe", "topic " + topic + " Write",
                    "topic " + topic + " Describe"));
        }
        assertThat(acls(DLQ_OPERATOR)).containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * The tool runs as a one-off Job (deploy/ops/dead-letters) that no overlay applies: the prod release's image of a
     * consuming service, the tool's main class on the image's whole application classpath, the prod listener's TLS
     * and SCRAM settings as {@link #DLQ_OPERATOR}, a heap below its limit; a replay is never retried by itself, and
     * the template as committed only lists.
     */
    @Test
    void theDeadLetterJobRunsTheToolAsTheOperatorOnTheProdListener() throws Exception {
        Rendered ops = Rendered.kustomization("ops/dead-letters");
        assertThat(ops.objects()).singleElement().satisfies(job -> assertThat(TypedObjects.faults(job)).isEmpty());
        assertThat(prod.ofKind("Job")).isEmpty();
        assertThat(Rendered.overlay("dev").ofKind("Job")).isEmpty();
        JsonNode job = ops.named("Job", "dead-letters");
        assertThat(job.path("metadata").path("namespace").asText())
                .isEqualTo(prod.named("Deployment", "notification-service").path("metadata").path("namespace").asText());
        assertThat(job.path("spec").path("backoffLimit").asInt(-1)).isZero();
        JsonNode pod = job.path("spec").path("template").path("spec");
        assertThat(pod.path("restartPolicy").asText()).isEqualTo("Never");
        JsonNode container = pod.path("containers").get(0);
        JsonNode service = prod.container("notification-service");
        assertThat(container.path("image").asText()).isEqualTo(service.path("image").asText());
        assertThat(container.path("securityContext").path("readOnlyRootFilesystem").asBoolean()).isTrue();

        List<String> command = Rendered.list(container.path("command")).stream().map(JsonNode::asText).toList();
        assertThat(command).contains("io.outpost.messaging.DeadLetterTool");
        assertThat(Rendered.ROOT.resolve("messaging-support/src/main/java/io/outpost/messaging/DeadLetterTool.java"))
                .exists();
        assertThat(command.get(command.indexOf("-cp") + 1).split(":"))
                .containsExactlyInAnyOrder("/deployments/lib/boot/*", "/deployments/lib/main/*");
        long heap = command.stream().filter(flag -> flag.startsWith("-Xmx")).map(flag -> ServiceConfig.bytes(flag.substring(4)))
                .findFirst().orElseThrow();
        assertThat(heap).isLessThan(Rendered.quantityBytes(container.path("resources").path("limits").path("memory").asText()));
        assertThat(container.path("args").get(0).asText()).as("the template lists, never replays").isEqualTo("list");

        assertThat(Rendered.env(container, "KAFKA_BOOTSTRAP_SERVERS")).isEqualTo(prod.named("ConfigMap", "outpost-config")
                .path("data").path("kafka-bootstrap-servers").asText());
        for (String setting : List.of("KAFKA_SECURITY_PROTOCOL", "KAFKA_SASL_MECHANISM", "KAFKA_SSL_TRUSTSTORE_TYPE",
                "KAFKA_SSL_TRUSTSTORE_LOCATION")) {
            assertThat(Rendered.env(container, setting)).as(setting).isEqualTo(Rendered.env(service, setting));
        }
        assertThat(Rendered.secretOf(container, "KAFKA_SASL_JAAS_CONFIG")).isEqualTo(DLQ_OPERATOR);
        assertThat(Rendered.list(pod.path("volumes")))
                .anyMatch(v -> v.path("secret").path("secretName").asText().equals("outpost-cluster-ca-cert"));

        // docs/operations.md runs this Job, and Kafka's console consumer on the same listener as the same user
        String runbook = section(Files.readString(Rendered.ROOT.resolve("docs/operations.md")), "### Inspect and re-publish");
        assertThat(runbook).contains("kubectl apply -k deploy/ops/dead-letters", "job/" + job.path("metadata").path("name")
                .asText(), "--bootstrap-server " + Rendered.env(container, "KAFKA_BOOTSTRAP_SERVERS"),
                "\"name\": \"" + DLQ_OPERATOR + "\"", "--group " + DLQ_GROUPS, "security.protocol=SASL_SSL")
                .doesNotContain("kubectl -n outpost exec deploy/", ":9092 ");
    }

    /** "type name Operation" for each ACL of a KafkaUser, read through Strimzi's model. */
    private static List<String> acls(String user) {
        KafkaUserSpec spec = prod.typed("KafkaUser", user, KafkaUser.class).getSpec();
        assertThat(spec.getAuthentication()).as(user).isInstanceOf(KafkaUserScramSha512ClientAuthentication.class);
        assertThat(spec.getAuthorization()).as(user).isInstanceOf(KafkaUserAuthorizationSimple.class);
        List<String> acls = new ArrayList<>();
        for (AclRule rule : ((KafkaUserAuthorizationSimple) spec.getAuthorization()).getAcls()) {
            assertThat(rule.getType()).as(user).isIn(null, AclRuleType.ALLOW);
            assertThat(rule.getOperation()).as(user + ": operations, not operation").isNull();
            String resource;
            if (rule.getResource() instanceof AclRuleTopicResource topic) {
                assertThat(topic.getPatternType()).isIn(null, AclResourcePatternType.LITERAL);
                resource = "topic " + topic.getName();
            } else if (rule.getResource() instanceof AclRuleGroupResource group) {
                // a prefixed group grant reads "group <prefix>*"
                resource = "group " + group.getName()
                        + (group.getPatternType() == AclResourcePatternType.PREFIX ? "*" : "");
            } else if (rule.getResource() instanceof AclRuleClusterResource) {
                resource = "cluster";
            } else {
                throw new AssertionError(user + ": an ACL on " + rule.getResource());
            }
            rule.getOperations().forEach(operation -> acls.add(resource + " " + operation.toValue()));
        }
        return acls;
    }

    @Test
    void authServicesTopicsExistAsItWouldCreateThemSinceItMayNot() throws Exception {
        Duration lifetime = Duration.parse(Rendered.configEnv("auth-service").getProperty("OUTPOST_AUTH_TOKEN_LIFETIME"));
        // the settings auth-service gives the topic where it creates it itself (EventTopicsTest)
        assertThat(topicConfig(Topics.AUTH_TOKEN_REVOCATIONS)).containsEntry("cleanup.policy", "compact,delete")
                .containsEntry("retention.ms", Long.toString(2 * lifetime.toMillis()))
                .containsEntry("segment.ms", Long.toString(lifetime.toMillis()));
        assertThat(topicConfig(Topics.AUTH_AUDIT)).doesNotContainKey("cleanup.policy");
        // what the services read: auth-service's defaults and the verifiers' (no override in any Deployment)
        for (String service : ManifestsTest.SERVICES) {
            assertThat(Rendered.envNames(prod.container(service))).as(service)
                    .doesNotContain("OUTPOST_AUTH_EVENTS_REVOCATION_TOPIC", "OUTPOST_AUTH_EVENTS_AUDIT_TOPIC",
                            "OUTPOST_SECURITY_REVOCATION_TOPIC", "OUTPOST_SECURITY_REVOCATION_ENABLED");
        }
    }

    /** A KafkaTopic's settings as text, after checking it is replicated like the others. */
    private static Map<String, String> topicConfig(String name) {
        KafkaTopic topic = prod.typed("KafkaTopic", name, KafkaTopic.class);
        assertThat(topic.getSpec().getTopicName()).isEqualTo(name);
        assertThat(topic.getMetadata().getLabels()).containsEntry("strimzi.io/cluster", "outpost");
        assertThat(topic.getSpec().getReplicas()).as(name).isEqualTo(3);
        Map<String, String> config = new TreeMap<>();
        topic.getSpec().getConfig().forEach((key, value) -> config.put(key, String.valueOf(value)));
        assertThat(config).as(name).containsEntry("min.insync.replicas", "2");
        return config;
    }

    /**
     * Every Kafka client the services make (producers, consumers, admin clients, in their modules and the shared
     * ones) takes the TLS/SASL settings, so that it authenticates on the listener above.
     */
    @Test
    void everyKafkaClientInTheServicesTakesTheSecuritySettings() throws Exception {
        Pattern client = Pattern.compile("new KafkaProducer<|new KafkaConsumer<|\\bAdmin(Client)?\\.create\\(");
        Map<String, Integer> clients = new TreeMap<>();
        for (String module : List.of("auth-service", "notification-service", "history-service", "service-support",
                "messaging-support")) {
            try (Stream<Path> files = Files.walk(Rendered.ROOT.resolve(module).resolve("src/main/java"))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    String source = Files.readString(file);
                    int made = count(client.matcher(source));
                    if (made > 0) {
                        clients.put(file.getFileName().toString(), made);
                        assertThat(count(Pattern.compile("KafkaClientSettings\\.configured\\(\\)").matcher(source)))
                                .as(file + ": a Kafka client without KafkaClientSettings").isGreaterThanOrEqualTo(made);
                    }
                }
            }
        }
        assertThat(clients).containsKeys("OutboxRelay.java", "RevocationFeed.java", "TopicIngestBuilder.java",
                "DeadLetters.java", "NotificationPublisher.java", "KafkaReachability.java");
    }

    private static int count(Matcher matcher) {
        int found = 0;
        while (matcher.find()) {
            found++;
        }
        return found;
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

    /**
     * A kube-prometheus-stack installed with its default values selects ServiceMonitors and PrometheusRules by the
     * label {@code release: <its Helm release>} only: both carry it, from the parameter {@code prometheus-release}.
     */
    @Test
    void aDefaultKubePrometheusStackSelectsTheMonitorAndTheRules() throws Exception {
        Properties parameters = new Properties();
        try (Reader reader = Files.newBufferedReader(ProdOverlayTest.prodFile("parameters.env"))) {
            parameters.load(reader);
        }
        String release = parameters.getProperty("prometheus-release");
        assertThat(release).isNotBlank();
        for (String kind : List.of("ServiceMonitor", "PrometheusRule")) {
            assertThat(prod.named(kind, "outpost").path("metadata").path("labels").path("release").asText()).as(kind)
                    .isEqualTo(release);
        }
    }

    @Test
    void theAlertsThatMatterUseOnlyPublishedMetrics() {
        List<JsonNode> rules = rules();
        Map<String, String> alerts = rules.stream()
                .collect(Collectors.toMap(r -> r.path("alert").asText(), r -> r.path("expr").asText()));
        assertThat(alerts.keySet()).contains("OutpostIngestStalled", "OutpostDeadLettersGrowing",
                "OutpostConsumerLagHigh", "OutpostHttp5xxRate", "OutpostPollsNearLimit", "OutpostTokenRefusalsSpiking",
                "OutpostRevocationFeedDown", "OutpostRevocationFeedBehind", "OutpostRevocationsWaiting");
        assertThat(alerts.get("OutpostIngestStalled")).contains("outpost_ingest_last_commit_age_seconds");
        assertThat(alerts.get("OutpostDeadLettersGrowing")).contains("outpost_ingest_records_dead_lettered_total");
        // one letter fires it, at once (docs/operations.md, "Dead letters"): no `for`, increase() of counters published
        // at 0 from start-up, and an arm for the letters of a pod younger than the window, which may precede its first
        // scrape — never for old letters of an old pod (theAlertsFireOnTheSeriesOfTheirPromtoolTests runs them)
        assertThat(rule(rules, "OutpostDeadLettersGrowing").path("for").asText()).isEqualTo("0m");
        assertThat(alerts.get("OutpostDeadLettersGrowing"))
                .contains("(increase(outpost_ingest_records_dead_lettered_total[15m]) > 0) or "
                        + "(outpost_ingest_records_dead_lettered_total and on (namespace, pod) (process_uptime_seconds < 900))")
                .doesNotContain("offset");
        assertThat(alerts.get("OutpostConsumerLagHigh")).contains("outpost_ingest_consumer_lag");
        assertThat(alerts.get("OutpostHttp5xxRate")).contains("status=~\"5..\"");
        assertThat(alerts.get("OutpostPollsNearLimit")).contains("outpost_notification_polls_held")
                .contains("outpost_notification_polls_max");
        assertThat(alerts.get("OutpostTokenRefusalsSpiking")).contains("outpost_auth_token_refusals_total");
        // revocations not reaching verifiers (docs/operations.md): a verifier that cannot read the feed, or reads it
        // but stays behind (its lag is -1 while it finds no topic), or revocations auth-service could not publish;
        // all fail open, so all page
        assertThat(alerts.get("OutpostRevocationFeedDown")).contains("outpost_auth_revocation_feed_connected")
                .contains("by (namespace, pod)").endsWith("== 0");
        assertThat(alerts.get("OutpostRevocationFeedBehind")).contains("outpost_auth_revocation_feed_lag")
                .contains("by (namespace, pod)").endsWith("!= 0");
        assertThat(alerts.get("OutpostRevocationsWaiting")).contains("outpost_auth_outbox_oldest_age_seconds")
                .matches(".*> \\d+$");
        for (String alert : List.of("OutpostRevocationFeedDown", "OutpostRevocationFeedBehind",
                "OutpostRevocationsWaiting")) {
            assertThat(severity(rules, alert)).as(alert).isEqualTo("critical");
        }
        assertThat(metricsIn(String.join("\n", alerts.values()))).isSubsetOf(METRICS);
    }

    /**
     * The PrometheusRule is the one source of the alerts: docs/deploy.md ("What to watch") names exactly its alerts,
     * docs/operations.md only those and none of their expressions; a summary that says how long counts the {@code for}
     * in (an age over 300 s held for 5m is 10 minutes without a commit).
     */
    @Test
    void theDocsDescribeExactlyTheShippedAlerts() throws Exception {
        List<JsonNode> rules = rules();
        Set<String> alerts = rules.stream().map(r -> r.path("alert").asText()).collect(Collectors.toSet());
        Pattern named = Pattern.compile("`(Outpost[A-Za-z0-9]+)`");
        String watch = section(Files.readString(Rendered.ROOT.resolve("docs/deploy.md")), "## What to watch");
        assertThat(found(named, watch)).as("alerts in docs/deploy.md").isEqualTo(alerts);
        String onCall = section(Files.readString(Rendered.ROOT.resolve("docs/operations.md")), "### What to alert on");
        assertThat(found(named, onCall)).as("alerts in docs/operations.md").isSubsetOf(alerts).isNotEmpty();
        assertThat(onCall).contains("deploy/overlays/prod/monitoring/alerts.yaml");
        assertThat(metricsIn(onCall)).as("expressions repeated in docs/operations.md").isEmpty();

        JsonNode stalled = rules.stream().filter(r -> r.path("alert").asText().equals("OutpostIngestStalled"))
                .findFirst().orElseThrow();
        Matcher age = Pattern.compile("outpost_ingest_last_commit_age_seconds\\) > (\\d+)")
                .matcher(stalled.path("expr").asText());
        assertThat(age.find()).isTrue();
        long minutes = Duration.ofSeconds(Long.parseLong(age.group(1)))
                .plus(Duration.parse("PT" + stalled.path("for").asText().toUpperCase())).toMinutes();
        assertThat(stalled.path("annotations").path("summary").asText()).contains("for " + minutes + " minutes");
        assertThat(watch).contains("nothing committed for " + minutes + " min");
    }

    private static List<JsonNode> rules() {
        return Rendered.list(prod.named("PrometheusRule", "outpost").path("spec").path("groups")).stream()
                .flatMap(g -> Rendered.list(g.path("rules")).stream()).toList();
    }

    /** A Markdown section: from its heading to the next heading of the same or a higher level outside code blocks. */
    static String section(String markdown, String heading) {
        int start = markdown.indexOf(heading + "\n");
        assertThat(start).as(heading).isNotNegative();
        int level = heading.indexOf(' ');
        StringBuilder section = new StringBuilder();
        boolean code = false;
        for (String line : markdown.substring(start).split("\n", -1)) {
            code ^= line.startsWith("```");
            if (!code && section.length() > 0 && line.matches("#{1," + level + "} .*")) {
                break;
            }
            section.append(line).append('\n');
        }
        return section.toString();
    }

    private static Set<String> found(Pattern pattern, String text) {
        Set<String> found = new TreeSet<>();
        Matcher matcher = pattern.matcher(text);
        while (matcher.find()) {
            found.add(matcher.group(1));
        }
        return found;
    }

    private static String severity(List<JsonNode> rules, String alert) {
        return rule(rules, alert).path("labels").path("severity").asText();
    }

    private static JsonNode rule(List<JsonNode> rules, String alert) {
        return rules.stream().filter(r -> r.path("alert").asText().equals(alert)).findFirst().orElseThrow();
    }

    /**
     * What the alerts fire on, evaluated by Prometheus's own rule engine: {@code promtool test rules} runs
     * {@code src/test/resources/alerts-test.yaml} (series in, alerts expected out) against the rendered
     * PrometheusRule's groups. Debian ships promtool in the package {@code prometheus}; .ci/run installs it where it is
     * missing. Without it this test is skipped, saying so: the other tests only read the expressions as text.
     */
    @Test
    void theAlertsFireOnTheSeriesOfTheirPromtoolTests() throws Exception {
        Path promtool = Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .filter(dir -> !dir.isEmpty()).map(dir -> Path.of(dir, "promtool")).filter(Files::isExecutable)
                .findFirst().orElse(null);
        Assumptions.assumeTrue(promtool != null,
                "promtool is not on PATH (Debian: apt-get install prometheus): the alerts' PromQL is not evaluated");
        Path dir = Files.createTempDirectory("outpost-alerts");
        try {
            Files.writeString(dir.resolve("alerts-rules.yaml"),
                    prod.named("PrometheusRule", "outpost").path("spec").toString()); // JSON is YAML
            try (var tests = ProdKafkaAndMonitoringTest.class.getResourceAsStream("/alerts-test.yaml")) {
                Files.copy(tests, dir.resolve("alerts-test.yaml"));
            }
            Process run = new ProcessBuilder(promtool.toString(), "test", "rules", "alerts-test.yaml")
                    .directory(dir.toFile()).redirectErrorStream(true).start();
            String output = new String(run.getInputStream().readAllBytes());
            assertThat(run.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as("promtool finished").isTrue();
            assertThat(run.exitValue()).as(output).isZero();
        } finally {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(dir);
        }
    }

    /**
     * Each name of {@link #METRICS} is registered by the services' code: the Micrometer name in dots, which
     * Prometheus shows with underscores and a unit or {@code _total} suffix (a histogram's buckets: {@code _seconds_bucket}).
     */
    @Test
    void everyMetricTheAlertsAndTheDashboardUseIsRegisteredByAService() throws Exception {
        Set<String> registered = new TreeSet<>();
        Pattern name = Pattern.compile("\"(outpost(\\.[a-z]+)+)\"");
        try (Stream<Path> files = Files.walk(Rendered.ROOT)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java") && f.toString().contains("/src/main/java/")
                    && !f.toString().contains("/target/")).toList()) {
                Matcher found = name.matcher(Files.readString(file));
                while (found.find()) {
                    registered.add(found.group(1));
                }
            }
        }
        for (String metric : METRICS.stream().filter(m -> m.startsWith("outpost_")).toList()) {
            String meter = metric.replaceFirst("_(total|seconds|seconds_bucket)$", "").replace('_', '.');
            assertThat(registered).as(metric).contains(meter);
        }
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
                        "outpost_auth_token_refusals_total", "http_server_requests_seconds_count",
                        "outpost_auth_revocation_feed_connected", "outpost_auth_outbox_oldest_age_seconds",
                        "outpost_ingest_record_delay_seconds_bucket");
    }

    private static Set<String> metricsIn(String expressions) {
        return found(METRIC, expressions);
    }
}
