package io.outpost.support;

import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.READ;

import java.util.Map;

import io.outpost.model.Topics;
import io.outpost.testsupport.KafkaUsers;
import io.outpost.testsupport.KafkaUsers.Grant;
import io.outpost.testsupport.OutpostTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;

/**
 * Every test of this module runs against the real PostgreSQL and Kafka of the test run, and reaches Kafka as the prod
 * overlay's resource servers do for the revocation feed (deploy/overlays/prod/kafka-users.yaml): over SCRAM, allowed
 * only to read {@code auth-token-revocations}, with no consumer group. A feed that ignored the {@code kafka.*}
 * security settings, or needed more than this grant, fails {@code RevocationTest}.
 */
@WithTestResource(value = RealBackingServices.AsAResourceServer.class, scope = TestResourceScope.GLOBAL)
public final class RealBackingServices {

    private RealBackingServices() {
    }

    public static class AsAResourceServer extends OutpostTestResource {
        @Override
        protected Map<String, String> kafkaUser() {
            return KafkaUsers.connectAs("resource-server", Grant.topic(Topics.AUTH_TOKEN_REVOCATIONS, READ, DESCRIBE));
        }
    }
}
