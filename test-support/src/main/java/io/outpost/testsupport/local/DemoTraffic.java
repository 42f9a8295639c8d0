package io.outpost.testsupport.local;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

import io.outpost.model.RawJsonObject;
import io.outpost.model.Topics;
import io.outpost.model.event.ConfigTransactionEvent;
import io.outpost.model.event.NotificationEvent;
import io.outpost.testsupport.TestKafka;

/**
 * {@code ./demo-traffic}: publishes a few notifications for the local stack's demo player and a few role and
 * match-making-profile-list transactions for its demo sandbox, through Kafka as real producers would, so the
 * curl lines {@code ./run-local} prints answer with data. Each run adds new ones.
 */
public final class DemoTraffic {

    private DemoTraffic() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args.length > 1 && args[0].equals("--root") ? args[1] : ".").toAbsolutePath().normalize();
        Demo demo = Demo.loadOrCreate(root.resolve(".outpost-local"));
        String bootstrap = System.getenv().getOrDefault("OUTPOST_KAFKA_BOOTSTRAP", "127.0.0.1:" + LocalStack.KAFKA_PORT);
        ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
        String player = demo.player().toString();
        String sandbox = demo.sandbox().toString();
        try (TestKafka kafka = new TestKafka(bootstrap)) {
            List<Map.Entry<String, String>> notifications = new ArrayList<>();
            notifications.add(Map.entry(player, json.writeValueAsString(new NotificationEvent(player,
                    "Welcome to Outpost!", null, null, null, null, null))));
            notifications.add(Map.entry(player, json.writeValueAsString(new NotificationEvent(player,
                    "You have a new friend request", "/friends/v1/requests/42", new RawJsonObject("{\"from\":\"Ada\",\"level\":17}"),
                    "\"r42-1\"", null, null))));
            notifications.add(Map.entry(player, json.writeValueAsString(new NotificationEvent(player,
                    "Season 3 starts tomorrow", null, new RawJsonObject("{\"season\":3}"), null, null, null))));
            kafka.sendAll(Topics.PLAYER_NOTIFICATIONS, notifications);

            UUID moderators = UUID.randomUUID();
            UUID builders = UUID.randomUUID();
            UUID ranked = UUID.randomUUID();
            List<Map.Entry<String, String>> history = new ArrayList<>();
            history.add(entry(json, sandbox, role(json, sandbox, moderators, 101, "create", "Moderators", List.of("chat:mute"))));
            history.add(entry(json, sandbox, role(json, sandbox, moderators, 101, "update", "Moderators",
                    List.of("chat:mute", "chat:kick"))));
            history.add(entry(json, sandbox, role(json, sandbox, builders, 102, "create", "Builders", List.of("world:edit"))));
            history.add(entry(json, sandbox, profileList(json, sandbox, ranked, "create", List.of("ranked-1v1"))));
            history.add(entry(json, sandbox, profileList(json, sandbox, ranked, "update", List.of("ranked-1v1", "ranked-2v2"))));
            kafka.sendAll(Topics.SANDBOX_CONFIG_TRANSACTIONS, history);
            System.out.printf("[outpost] published 3 notifications for player %s and 5 transactions for sandbox %s "
                    + "(Kafka %s)%n", player, sandbox, bootstrap);
        }
    }

    private static Map.Entry<String, String> entry(ObjectMapper json, String key, ConfigTransactionEvent event)
            throws Exception {
        return Map.entry(key, json.writeValueAsString(event));
    }

    private static ConfigTransactionEvent role(ObjectMapper json, String sandbox, UUID role, long legacyId,
            String operation, String name, List<String> permissions) {
        ObjectNode version = json.createObjectNode().put("id", role.toString()).put("name", name);
        version.putPOJO("permissions", permissions);
        return new ConfigTransactionEvent(UUID.randomUUID().toString(), sandbox, ConfigTransactionEvent.ROLE,
                role.toString(), legacyId, "demo-admin", Instant.now(), operation, UUID.randomUUID().toString(),
                name + " " + operation, json.valueToTree(version));
    }

    private static ConfigTransactionEvent profileList(ObjectMapper json, String sandbox, UUID list, String operation,
            List<String> profiles) {
        ObjectNode version = json.createObjectNode().put("id", list.toString());
        version.putPOJO("profiles", profiles);
        return new ConfigTransactionEvent(UUID.randomUUID().toString(), sandbox,
                ConfigTransactionEvent.MATCH_MAKING_PROFILE_LIST, list.toString(), null, "demo-admin", Instant.now(),
                operation, UUID.randomUUID().toString(), null, json.valueToTree(version));
    }
}
