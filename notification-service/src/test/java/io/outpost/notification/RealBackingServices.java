package io.outpost.notification;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.outpost.model.Topics;
import io.outpost.testsupport.KafkaUsers;
import io.outpost.testsupport.OutpostTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;

/**
 * Every test of this module runs against the real PostgreSQL and Kafka of the test run, and reaches Kafka as the
 * prod overlay's {@code KafkaUser} notification-service, with exactly its ACLs (deploy/overlays/prod/kafka-users.yaml):
 * over SCRAM, on topics that exist beforehand as the overlay's {@code KafkaTopic}s do. Ingest, dead letters,
 * the publish endpoint, the reachability check and the revocation feed all go through it.
 */
@WithTestResource(value = RealBackingServices.AsItsKafkaUser.class, scope = TestResourceScope.GLOBAL)
public final class RealBackingServices {

    private RealBackingServices() {
    }

    public static class AsItsKafkaUser extends OutpostTestResource {
        /** How often the wake-up listener checks its connection (15 s in production), for WakeUpTest's silent one. */
        static final Duration LISTEN_KEEPALIVE = Duration.ofSeconds(2);

        @Override
        public Map<String, String> start() {
            Map<String, String> settings = new HashMap<>(super.start());
            settings.put("outpost.notification.listen-keepalive-interval", LISTEN_KEEPALIVE.toString());
            return settings;
        }

        @Override
        protected Map<String, String> kafkaUser() {
            String topic = Topics.PLAYER_NOTIFICATIONS;
            KafkaUsers.createTopics(topic, Topics.deadLetter(topic));
            return KafkaUsers.connectAsProdUser("notification-service");
        }
    }
}
