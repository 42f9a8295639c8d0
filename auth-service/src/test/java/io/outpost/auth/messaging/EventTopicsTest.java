package io.outpost.auth.messaging;

import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

import io.outpost.auth.TestConfigs;
import io.outpost.auth.config.AuthConfig;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.KafkaUsers;
import io.outpost.testsupport.KafkaUsers.Grant;

/**
 * auth-service's topics on the real broker: created when missing (locally), and left alone when they exist — in
 * Kubernetes they are KafkaTopics, and auth-service's user may write them but not create topics.
 */
class EventTopicsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void createsMissingTopicsTheRevocationTopicCompactedForTwiceTheTokenLifetime() throws Exception {
        AuthConfig config = uniqueTopics();
        try (Admin admin = admin(Map.of("bootstrap.servers", BackingServices.shared().kafkaBootstrapServers()))) {
            EventTopics.ensure(admin, EventTopics.of(config), TIMEOUT);
            ConfigResource revocations = new ConfigResource(ConfigResource.Type.TOPIC, config.events().revocationTopic());
            Config created = admin.describeConfigs(List.of(revocations)).all().get(30, TimeUnit.SECONDS).get(revocations);
            assertThat(created.get("cleanup.policy").value()).isEqualTo("compact,delete");
            assertThat(created.get("retention.ms").value()).isEqualTo(Long.toString(2 * 3_600_000L));
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(config.events().auditTopic());
        }
    }

    @Test
    void leavesExistingTopicsAloneSoThatAUserWhoMayNotCreateTopicsNeedsNoMore() throws Exception {
        assumeTrue(BackingServices.shared().broker().isPresent(), "users need the test run's own broker");
        AuthConfig config = uniqueTopics();
        List<NewTopic> topics = EventTopics.of(config);
        KafkaUsers.createTopics(topics);
        Map<String, String> asUser = KafkaUsers.connectAs("auth-topics-" + UUID.randomUUID(),
                Grant.topic(config.events().revocationTopic(), WRITE, DESCRIBE),
                Grant.topic(config.events().auditTopic(), WRITE, DESCRIBE));
        try (Admin admin = admin(asUser)) {
            EventTopics.ensure(admin, topics, TIMEOUT);
            // what auth-service did before: ask to create them anyway, which this user may not
            assertThatThrownBy(() -> admin.createTopics(topics).all().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    private static AuthConfig uniqueTopics() {
        String id = UUID.randomUUID().toString();
        return TestConfigs.auth(Map.of("events.revocation-topic", "revocations-" + id, "events.audit-topic",
                "audit-" + id));
    }

    private static Admin admin(Map<String, String> kafkaSettings) {
        Map<String, Object> settings = new HashMap<>();
        kafkaSettings.forEach((key, value) -> settings.put(key.replaceFirst("^kafka\\.", ""), value));
        settings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        return Admin.create(settings);
    }
}
