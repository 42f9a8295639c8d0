package io.outpost.auth.edge;

import static io.outpost.auth.edge.FromAddress.tokenRequest;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.outpost.auth.GatewayInFront;
import io.outpost.auth.TestClients;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;

/**
 * Throttling counts failures per client address (default 30 a minute). Behind the gateway that address is the
 * caller's, from {@code X-Forwarded-For}, which the service believes only from its trusted proxies
 * ({@code quarkus.http.proxy.trusted-proxies}, loopback 127.0.0.1 here): each client is counted on its own, and no
 * client can pass for another — nor by naming an address in x-svc-client-addr, which is only a hint. Clients are
 * told apart by their own loopback source addresses.
 */
@QuarkusTest
class ClientAddressTest {

    private static final int MAX_PER_ADDRESS = 30;

    @Test
    void eachClientBehindTheGatewayIsCountedByItsOwnAddress() throws Exception {
        String token = GatewayInFront.url() + TestClients.TOKEN_PATH;
        for (int i = 0; i < MAX_PER_ADDRESS; i++) {
            assertThat(tokenRequest("127.0.0.2", token, Map.of())).isEqualTo(401);
        }
        assertThat(tokenRequest("127.0.0.2", token, Map.of())).isEqualTo(429);
        // before forwarded headers were believed, every client behind the proxy shared the proxy's count
        assertThat(tokenRequest("127.0.0.3", token, Map.of())).isEqualTo(401);
        // the gateway replaces what a caller claims: the throttled client cannot pass for a fresh address
        assertThat(tokenRequest("127.0.0.2", token, Map.of("X-Forwarded-For", "127.0.0.99"))).isEqualTo(429);
        // nor can another client pass for the throttled one
        assertThat(tokenRequest("127.0.0.3", token, Map.of("X-Forwarded-For", "127.0.0.2"))).isEqualTo(401);
    }

    /**
     * DESIGN §4a: x-svc-client-addr is the caller's hint, never the throttle's key. A caller that names a new address
     * on every failed attempt is throttled all the same, by the address it comes from.
     */
    @Test
    void aNewClientAddressHintOnEveryAttemptDoesNotEscapeTheThrottle() throws Exception {
        String token = GatewayInFront.url() + TestClients.TOKEN_PATH;
        for (int i = 0; i < MAX_PER_ADDRESS; i++) {
            assertThat(tokenRequest("127.0.0.20", token, Map.of("x-svc-client-addr", "203.0.113." + i))).isEqualTo(401);
        }
        assertThat(tokenRequest("127.0.0.20", token, Map.of("x-svc-client-addr", "203.0.113.200"))).isEqualTo(429);
    }

    /**
     * DESIGN §4a: a flood of failures naming a victim's address in x-svc-client-addr throttles the flood's own
     * address, not the victim's: the victim's client, whose secret this replica has never proven, gets its token.
     */
    @Test
    void aFloodNamingAVictimsAddressLeavesTheVictimsNewClientA200() throws Exception {
        String token = GatewayInFront.url() + TestClients.TOKEN_PATH;
        for (int i = 0; i <= MAX_PER_ADDRESS; i++) {
            assertThat(tokenRequest("127.0.0.21", token, Map.of("x-svc-client-addr", "127.0.0.22",
                    "Authorization", TestClients.basic("unknown-" + i, "guess")))).isIn(401, 429);
        }
        assertThat(tokenRequest("127.0.0.22", token, Map.of("Authorization",
                TestClients.basic("test-fresh", "test-fresh-secret")))).isEqualTo(200);
    }

    /**
     * Behind an edge that appends the peer it saw to what the client sent (Envoy's default), the client's own entry
     * comes first: the throttle keys on the right-most entry that is no trusted proxy, so a client naming a new
     * address in front on every attempt is counted as the one address the edge saw. The trusted proxy here is
     * loopback 127.0.0.1, as the gateway is, sending what such an edge would.
     */
    @Test
    void behindAnAppendingProxyTheRightMostUntrustedEntryIsTheClient() throws Exception {
        String direct = "http://127.0.0.1:" + RestAssured.port + TestClients.TOKEN_PATH;
        int throttled = 0;
        for (int i = 0; i < 45; i++) {
            int status = tokenRequest("127.0.0.1", direct, Map.of("X-Forwarded-For", "198.51.100." + i + ", 192.0.2.77"));
            assertThat(status).isEqualTo(i < MAX_PER_ADDRESS ? 401 : 429);
            throttled += status == 429 ? 1 : 0;
        }
        assertThat(throttled).isEqualTo(45 - MAX_PER_ADDRESS);
        // two trusted hops (an appending proxy behind another): the walk passes the trusted one, to the same client
        assertThat(tokenRequest("127.0.0.1", direct, Map.of("X-Forwarded-For", "198.51.100.250, 192.0.2.77, 127.0.0.1")))
                .isEqualTo(429);
        // the entries on the client's side of it are not counted: its neighbour on the left is another client
        assertThat(tokenRequest("127.0.0.1", direct, Map.of("X-Forwarded-For", "192.0.2.77, 192.0.2.78"))).isEqualTo(401);
        // behind the replacing gateway the same header from a fresh client is the gateway's to replace
        assertThat(tokenRequest("127.0.0.30", GatewayInFront.url() + TestClients.TOKEN_PATH,
                Map.of("X-Forwarded-For", "198.51.100.1, 192.0.2.77"))).isEqualTo(401);
    }

    @Test
    void forwardedHeadersFromAPeerThatIsNoTrustedProxyAreIgnored() throws Exception {
        String direct = "http://127.0.0.1:" + RestAssured.port + TestClients.TOKEN_PATH;
        for (int i = 0; i < MAX_PER_ADDRESS; i++) { // a new claimed address each time: believed, none would reach 30
            assertThat(tokenRequest("127.0.0.5", direct, Map.of("X-Forwarded-For", "198.51.100." + i))).isEqualTo(401);
        }
        assertThat(tokenRequest("127.0.0.5", direct, Map.of("X-Forwarded-For", "198.51.100.200"))).isEqualTo(429);
        assertThat(tokenRequest("127.0.0.6", direct, Map.of("X-Forwarded-For", "127.0.0.5"))).isEqualTo(401);
    }
}
