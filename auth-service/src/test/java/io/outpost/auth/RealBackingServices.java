package io.outpost.auth;

import java.util.Map;

import io.outpost.auth.messaging.EventTopics;
import io.outpost.testsupport.KafkaUsers;
import io.outpost.testsupport.OutpostTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;

/**
 * Every test of this module runs against the real PostgreSQL and Kafka of the test run, and reaches Kafka as the
 * prod overlay's {@code KafkaUser} auth-service, with exactly its ACLs (deploy/overlays/prod/kafka-users.yaml): over
 * SCRAM, allowed to write its two topics and read the revocation topic, which exist beforehand as the overlay's
 * {@code KafkaTopic}s do. A Kafka client of the service that ignored the {@code kafka.*} security settings, or needed
 * more than these grants, fails the tests that go through Kafka.
 */
@WithTestResource(value = RealBackingServices.AsItsKafkaUser.class, scope = TestResourceScope.GLOBAL)
public final class RealBackingServices {

    private RealBackingServices() {
    }

    public static class AsItsKafkaUser extends OutpostTestResource {
        @Override
        protected Map<String, String> kafkaUser() {
            KafkaUsers.createTopics(EventTopics.of(TestConfigs.auth(Map.of())));
            return KafkaUsers.connectAsProdUser("auth-service");
        }
    }
}
