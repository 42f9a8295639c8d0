package io.outpost.history;

import java.util.List;

import io.outpost.support.security.revocation.RevocationReadinessCheck;
import io.outpost.testsupport.UnreachableBackingServicesProfile;
import io.outpost.testsupport.contract.ReadinessDownContract;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

@QuarkusTest
@TestProfile(UnreachableBackingServicesProfile.class)
class ReadinessDownTest extends ReadinessDownContract {

    @Override
    protected List<String> readinessChecks() {
        return List.of("PostgreSQL", RevocationReadinessCheck.NAME);
    }
}
