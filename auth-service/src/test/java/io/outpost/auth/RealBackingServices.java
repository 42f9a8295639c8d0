package io.outpost.auth;

import io.outpost.testsupport.OutpostTestResource;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;

/** Every test of this module runs against the real PostgreSQL and Kafka of the test run. */
@WithTestResource(value = OutpostTestResource.class, scope = TestResourceScope.GLOBAL)
public final class RealBackingServices {

    private RealBackingServices() {
    }
}
