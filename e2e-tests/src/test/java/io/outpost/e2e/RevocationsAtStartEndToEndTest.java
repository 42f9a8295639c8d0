package io.outpost.e2e;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.time.Duration;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.outpost.e2e.Client.Answer;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.KafkaBroker;
import io.outpost.testsupport.local.OutpostStack;

/**
 * A verifier that starts while Kafka is away knows no revocation: the packaged notification-service, restarted
 * with the broker stopped, is not ready — its readiness says why, and so does its log — and answers 503
 * {@code revocations_unread} to a bearer request, a token revoked before the restart included, rather than accept
 * it unchecked. Once the broker is back it reads the revocation topic, becomes ready and refuses the revoked token.
 */
class RevocationsAtStartEndToEndTest {

    private static final String SERVICE = "notification-service";
    private static final int REVOKED_PLAYER = 15;
    private static final int VALID_PLAYER = 16;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void aVerifierRestartedWhileTheBrokerIsStoppedIsUnreadyAndAnswers503UntilItHasReadTheRevocations()
            throws Exception {
        KafkaBroker broker = BackingServices.shared().broker().orElse(null);
        Assumptions.assumeTrue(broker != null, "needs the Kafka broker started by this test run");
        Scene scene = new Scene();
        OutpostStack stack = scene.stack;
        Client gateway = scene.gateway;
        String revoked = scene.playerToken(REVOKED_PLAYER);
        String valid = scene.playerToken(VALID_PLAYER);
        given().auth().preemptive().basic(E2eStack.playerClient(REVOKED_PLAYER), E2eStack.PLAYER_SECRET)
                .contentType("application/x-www-form-urlencoded").formParam("token", revoked)
                .post(stack.gatewayUrl() + "/users/v2/oauth/revoke").then().statusCode(200);
        await().atMost(WAIT).until(() -> poll(gateway, revoked).status() == 403);
        scene.log("token revoked and refused");

        boolean brokerStopped = false;
        try {
            stack.kill(SERVICE);
            broker.stop();
            brokerStopped = true;
            scene.log("broker stopped");
            stack.restartUnready(SERVICE);
            scene.log(SERVICE + " restarted");

            Answer ready = await().atMost(WAIT).until(() -> scene.notification.get("/q/health/ready", null,
                    Scene.HANG), answer -> answer.status() == 503 && reason(answer).contains("startup-timeout"));
            assertThat(ready.body().path("status").asText()).isEqualTo("DOWN");
            assertThat(reason(ready)).startsWith("the revocation topic is not read yet: Kafka has not answered for ")
                    .contains("(startup-timeout 10 s passed)");
            for (String token : new String[] { valid, revoked }) {
                Answer refused = poll(gateway, token);
                assertThat(refused.status()).as("%s", refused).isEqualTo(503);
                assertThat(refused.body().path("error_code").asText()).isEqualTo("revocations_unread");
                assertThat(refused.body().path("desc").asText()).isNotBlank();
            }
            assertThat(Files.readString(stack.log(stack.service(SERVICE))))
                    .contains("revocation feed: the revocation topic is not read yet: Kafka has not answered for ");

            broker.start();
            brokerStopped = false;
            scene.log("broker back");
            await().atMost(WAIT).until(() -> scene.notification.get("/q/health/ready", null, Scene.HANG)
                    .status() == 200);
            scene.log(SERVICE + " ready");
            Answer refused = poll(gateway, revoked);
            assertThat(refused.status()).as("%s", refused).isEqualTo(403);
            assertThat(refused.body().path("error_code").asText()).isEqualTo("auth_token_unknown");
            assertThat(poll(gateway, valid).status()).isEqualTo(200);
        } finally {
            if (brokerStopped) {
                broker.start();
            }
            stack.restart(SERVICE); // a no-op unless the test failed while it was down
        }
    }

    private static Answer poll(Client gateway, String token) {
        return gateway.get(Client.POLL + "?deadline=0", token, Scene.HANG);
    }

    private static String reason(Answer readiness) {
        for (JsonNode check : readiness.body().path("checks")) {
            if (check.path("name").asText().equals("Revocations")) {
                return check.path("data").path("reason").asText();
            }
        }
        return "";
    }
}
