package io.outpost.auth.messaging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import io.outpost.auth.config.AuthConfig;

/**
 * auth-service's two topics, created when missing: the revocation topic compacted, and deleted past twice the token
 * lifetime (every record is moot by then); the audit topic with the broker's defaults. Only missing topics are
 * created: in Kubernetes both are Strimzi {@code KafkaTopic}s with these settings, and auth-service's
 * {@code KafkaUser} may write them but not create topics (docs/deploy.md, "Kafka users and ACLs").
 */
public final class EventTopics {

    private EventTopics() {
    }

    /** The topics as auth-service would create them. */
    public static List<NewTopic> of(AuthConfig config) {
        long lifetime = config.tokenLifetime().toMillis();
        NewTopic revocations = new NewTopic(config.events().revocationTopic(), Optional.empty(), Optional.empty())
                .configs(Map.of("cleanup.policy", "compact,delete", "retention.ms", Long.toString(2 * lifetime),
                        "segment.ms", Long.toString(lifetime)));
        NewTopic audit = new NewTopic(config.events().auditTopic(), Optional.empty(), Optional.empty());
        return List.of(revocations, audit);
    }

    /** Creates those of {@code topics} the cluster does not have; needs {@code Describe}, and {@code Create} only then. */
    static void ensure(Admin admin, List<NewTopic> topics, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<String, KafkaFuture<TopicDescription>> described = admin
                .describeTopics(topics.stream().map(NewTopic::name).toList()).topicNameValues();
        List<NewTopic> missing = new ArrayList<>();
        for (NewTopic topic : topics) {
            try {
                described.get(topic.name()).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
                missing.add(topic);
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        for (KafkaFuture<Void> created : admin.createTopics(missing).values().values()) {
            try {
                created.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) { // another replica was first
                    throw e;
                }
            }
        }
    }
}
