package io.outpost.history;

import java.util.List;

import io.outpost.support.security.revocation.RevocationReadinessCheck;
import io.outpost.testsupport.contract.ReadinessContract;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
class ReadinessTest extends ReadinessContract {

    @Override
    protected List<String> readinessChecks() {
        return List.of("PostgreSQL", RevocationReadinessCheck.NAME);
    }

    @Override
    protected String schema() {
        return "history";
    }
}
