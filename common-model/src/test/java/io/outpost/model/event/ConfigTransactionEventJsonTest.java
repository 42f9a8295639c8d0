package io.outpost.model.event;

import static io.outpost.model.TestJson.assertSerializesTo;
import static io.outpost.model.TestJson.fieldNames;
import static io.outpost.model.TestJson.parse;
import static io.outpost.model.TestJson.read;
import static io.outpost.model.TestJson.roundTrip;
import static io.outpost.model.TestJson.tree;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import org.junit.jupiter.api.Test;

class ConfigTransactionEventJsonTest {

    static final String SANDBOX = "11111111-2222-4333-8444-555555555555";
    static final String RESOURCE = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
    static final Instant ISSUED = Instant.parse("2026-01-02T03:04:05Z");

    static final ConfigTransactionEvent ROLE = new ConfigTransactionEvent("tx-1", SANDBOX, "role", RESOURCE, 42L,
            "acc-1", ISSUED, "update", "v-2", "Admin v2", parse("""
                    {"name":"Admin","permissions":["a:b"],"weight":1.5,"parent":null}"""));
    static final ConfigTransactionEvent PROFILE_LIST = new ConfigTransactionEvent("tx-2", SANDBOX,
            "match-making-profile-list", RESOURCE, null, "acc-2", ISSUED, "create", "v-1", null,
            parse("""
                    {"profiles":[{"id":1}]}"""));

    @Test
    void writesDesignFieldNames() {
        assertSerializesTo(ROLE, """
                {"transaction_id":"tx-1","sandbox_id":"11111111-2222-4333-8444-555555555555",
                 "resource_type":"role","resource_id":"aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee","legacy_id":42,
                 "account_id":"acc-1","issued_at":"2026-01-02T03:04:05Z","operation":"update",
                 "version_id":"v-2","version_name":"Admin v2",
                 "version":{"name":"Admin","permissions":["a:b"],"weight":1.5,"parent":null}}""");
    }

    @Test
    void omitsAbsentLegacyIdAndVersionName() {
        assertThat(fieldNames(tree(PROFILE_LIST))).containsExactlyInAnyOrder("transaction_id", "sandbox_id",
                "resource_type", "resource_id", "account_id", "issued_at", "operation", "version_id", "version");
    }

    @Test
    void roundTripsRoleAndProfileListEvents() {
        assertThat(roundTrip(ROLE)).isEqualTo(ROLE);
        assertThat(roundTrip(PROFILE_LIST)).isEqualTo(PROFILE_LIST);
    }

    @Test
    void readsIssuedAtWithOffsetAsSameInstant() {
        ConfigTransactionEvent event = read("""
                {"transaction_id":"t","issued_at":"2026-01-02T05:04:05+02:00","legacy_id":7}""",
                ConfigTransactionEvent.class);

        assertThat(event.issuedAt()).isEqualTo(ISSUED);
        assertThat(event.legacyId()).isEqualTo(7L);
    }
}
