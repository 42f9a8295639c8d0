package io.outpost.history;

import java.util.Map;

import io.outpost.model.Topics;
import io.outpost.testsupport.KafkaUsers;
import io.outpost.testsupport.OutpostTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;

/**
 * Every test of this module runs against the real PostgreSQL and Kafka of the test run, and reaches Kafka as the
 * prod overlay's {@code KafkaUser} history-service, with exactly its ACLs (deploy/overlays/prod/kafka-users.yaml):
 * over SCRAM, on topics that exist beforehand as the overlay's {@code KafkaTopic}s do. Ingest, dead letters,
 * the reachability check and the revocation feed all go through it.
 */
@WithTestResource(value = RealBackingServices.AsItsKafkaUser.class, scope = TestResourceScope.GLOBAL)
public final class RealBackingServices {

    private RealBackingServices() {
    }

    public static class AsItsKafkaUser extends OutpostTestResource {
        @Override
        protected Map<String, String> kafkaUser() {
            String topic = Topics.SANDBOX_CONFIG_TRANSACTIONS;
            KafkaUsers.createTopics(topic, Topics.deadLetter(topic));
            return KafkaUsers.connectAsProdUser("history-service");
        }
    }
}
