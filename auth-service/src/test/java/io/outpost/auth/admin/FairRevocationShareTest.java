package io.outpost.auth.admin;

import static io.outpost.auth.TestClients.token;
import static io.outpost.auth.admin.RevocationBoundsTest.connect;
import static io.outpost.auth.admin.RevocationBoundsTest.liveRevocations;
import static io.outpost.auth.admin.RevocationBoundsTest.newClient;
import static io.outpost.auth.admin.RevocationBoundsTest.revoke;
import static io.outpost.auth.admin.TokenLifecycleTest.introspect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The bound on all single-token revocations is shared fairly (docs/auth.md, "Revocation"): each client may hold its
 * share of it, so clients that revoke all they can never fill it, and a newcomer's revocation is still by its id.
 * With {@code max-tokens} 100 and 20 per client, five clients would fill it under a bound per client alone.
 */
@QuarkusTest
@TestProfile(FairRevocationShareTest.SmallBound.class)
class FairRevocationShareTest {

    private static final int IN_ALL = 100;
    private static final int PER_CLIENT = 20;

    public static class SmallBound implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("outpost.auth.revocations.max-tokens", String.valueOf(IN_ALL));
        }
    }

    @Test
    void clientsThatRevokeAllTheyMayLeaveRoomForANewcomer() throws Exception {
        forgetEveryLiveRevocation();
        for (int c = 0; c < IN_ALL / PER_CLIENT; c++) {
            String[] greedy = newClient();
            // by id until its share is used up: the next one is folded into its cut-off, and the row count stays
            for (long held = 0; held < PER_CLIENT; held++) {
                revoke(greedy, token(greedy[0], greedy[1]));
                if (liveRevocations(greedy[0]) == held) {
                    break;
                }
            }
            assertThat(liveRevocations(greedy[0])).as("client %d", c).isLessThan(PER_CLIENT);
        }
        assertThat(allLive()).isLessThan(IN_ALL);

        String[] newcomer = newClient();
        String kept = token(newcomer[0], newcomer[1]);
        String revoked = token(newcomer[0], newcomer[1]);
        revoke(newcomer, revoked);
        assertThat(liveRevocations(newcomer[0])).as("by its id, not folded").isOne();
        await().atMost(Duration.ofSeconds(2)).until(() -> !introspect(revoked).getBoolean("active"));
        assertThat(introspect(kept).getBoolean("active")).as("an earlier token is not revoked with it").isTrue();
    }

    /** Rows other test classes left (their tokens stay revoked on every verifier; only the count is reset). */
    private static void forgetEveryLiveRevocation() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM auth.revoked_token");
        }
    }

    private static long allLive() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                var rows = statement.executeQuery("SELECT count(*) FROM auth.revoked_token WHERE expires_at > now()")) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
