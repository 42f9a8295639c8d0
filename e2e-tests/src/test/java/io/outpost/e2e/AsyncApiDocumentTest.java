package io.outpost.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.outpost.model.Topics;

/**
 * docs/asyncapi.yaml describes every topic Outpost reads or writes, each message's references resolve, and the
 * records auth-service writes meet their schemas (the ingest's records are checked by {@link PoisonRecordsTest}, as
 * the ingest accepts and refuses them; auth-service's real ones by {@link GeneratedClientEndToEndTest}). No stack.
 */
class AsyncApiDocumentTest {

    private final AsyncApiDocument document = AsyncApiDocument.load();

    @Test
    void everyTopicIsAChannelAndEveryReferenceResolves() {
        assertThat(document.root().path("asyncapi").asText()).isEqualTo("3.0.0");
        Set<String> addresses = new TreeSet<>();
        document.root().path("channels").forEach(c -> addresses.add(c.path("address").asText()));
        assertThat(addresses).containsExactlyInAnyOrder(Topics.PLAYER_NOTIFICATIONS,
                Topics.deadLetter(Topics.PLAYER_NOTIFICATIONS), Topics.SANDBOX_CONFIG_TRANSACTIONS,
                Topics.deadLetter(Topics.SANDBOX_CONFIG_TRANSACTIONS), Topics.AUTH_TOKEN_REVOCATIONS, Topics.AUTH_AUDIT);
        List<String> unresolved = new ArrayList<>();
        references(document.root(), unresolved);
        assertThat(unresolved).as("references that name nothing").isEmpty();
        assertThat(document.resolve(document.message(Topics.deadLetter(Topics.PLAYER_NOTIFICATIONS)).path("headers"))
                .path("required").toString()).contains(Topics.DLQ_REASON_HEADER, "outpost-dlq-source");
    }

    @Test
    void revocationAndAuditRecordsAsAuthServiceWritesThemMeetTheirSchemas() {
        String token = "{\"type\":\"token\",\"jti\":\"j-1\",\"client_id\":\"game\",\"expires_at\":1767229200,\"reason\":\"revoked\"}";
        String client = "{\"type\":\"client\",\"client_id\":\"game\",\"issued_before\":1767225600,\"expires_at\":1767229200,"
                + "\"reason\":\"disabled\"}";
        assertThat(document.faults(Topics.AUTH_TOKEN_REVOCATIONS, "token:j-1", AsyncApiDocument.utf8(token))).isEmpty();
        assertThat(document.faults(Topics.AUTH_TOKEN_REVOCATIONS, "client:game", AsyncApiDocument.utf8(client))).isEmpty();
        // what the feed ignores: a client revocation without its cut-off, a token one without its jti
        assertThat(document.faults(Topics.AUTH_TOKEN_REVOCATIONS, "client:game",
                AsyncApiDocument.utf8(client.replace("\"issued_before\":1767225600,", "")))).isNotEmpty();
        assertThat(document.faults(Topics.AUTH_TOKEN_REVOCATIONS, "token:j-1",
                AsyncApiDocument.utf8(token.replace("\"jti\":\"j-1\",", "")))).isNotEmpty();
        String audit = "{\"at\":\"2026-01-01T00:00:00Z\",\"actor\":\"admin\",\"action\":\"client.created\","
                + "\"client_id\":\"game\",\"permissions\":[\"sandbox:config:view\"]}";
        assertThat(document.faults(Topics.AUTH_AUDIT, "game", AsyncApiDocument.utf8(audit))).isEmpty();
        assertThat(document.headerFaults(Topics.deadLetter(Topics.PLAYER_NOTIFICATIONS), Map.of(
                Topics.DLQ_REASON_HEADER, "value: JSON decode error [json_invalid]"))).isNotEmpty();
    }

    private void references(JsonNode node, List<String> unresolved) {
        if (node.isObject()) {
            JsonNode ref = node.get("$ref");
            if (ref != null && (!ref.asText().startsWith("#/") || document.root().at(ref.asText().substring(1))
                    .isMissingNode())) {
                unresolved.add(ref.asText());
            }
            node.forEach(child -> references(child, unresolved));
        } else if (node.isArray()) {
            node.forEach(child -> references(child, unresolved));
        }
    }
}
