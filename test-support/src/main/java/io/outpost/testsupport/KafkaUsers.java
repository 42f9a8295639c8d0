package io.outpost.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/**
 * Users of the test broker's SASL listener ({@link KafkaBroker#saslBootstrapServers()}): SCRAM-SHA-512, with exactly
 * the ACLs granted, as a Strimzi {@code KafkaUser} with simple authorization is on the prod overlay's listener. A
 * service under test that connects as one shows that each of its Kafka clients applies the {@code kafka.*} security
 * settings, and that it needs nothing its user lacks.
 */
public final class KafkaUsers {

    /** Operations on one resource, as in a {@code KafkaUser}'s {@code acls} entry (literal names only). */
    public record Grant(ResourceType type, String name, List<AclOperation> operations) {

        public static Grant topic(String name, AclOperation... operations) {
            return new Grant(ResourceType.TOPIC, name, List.of(operations));
        }

        public static Grant group(String name, AclOperation... operations) {
            return new Grant(ResourceType.GROUP, name, List.of(operations));
        }

        public static Grant cluster(AclOperation... operations) {
            return new Grant(ResourceType.CLUSTER, "kafka-cluster", List.of(operations));
        }
    }

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Path PROD_USERS = Path.of("deploy", "overlays", "prod", "kafka-users.yaml");

    private KafkaUsers() {
    }

    /**
     * Creates {@code user} on the test run's broker (or gives it a new password) with exactly {@code grants}, and
     * returns once the broker authenticates it and enforces them: the {@code kafka.*} settings a service connects
     * with. Empty when an external Kafka is used ({@link BackingServices#KAFKA_ENV}): the service then connects
     * without authentication.
     */
    public static Map<String, String> connectAs(String user, Grant... grants) {
        return BackingServices.shared().broker().map(broker -> connectAs(broker, user, List.of(grants)))
                .orElse(Map.of());
    }

    /**
     * {@link #connectAs} the prod overlay's {@code KafkaUser} {@code user}, with exactly the ACLs it declares
     * (deploy/overlays/prod/kafka-users.yaml, read from the repository this test runs in): a service's tests that
     * pass as it show that those grants are enough, and deploy/'s render test that they are no more than needed.
     */
    public static Map<String, String> connectAsProdUser(String user) {
        return connectAs(user, prodGrants(user).toArray(Grant[]::new));
    }

    static List<Grant> prodGrants(String user) {
        Path file = repositoryRoot().resolve(PROD_USERS);
        List<Grant> grants = new ArrayList<>();
        try (MappingIterator<JsonNode> documents = new YAMLMapper().readerFor(JsonNode.class).readValues(file.toFile())) {
            for (JsonNode document : documents.readAll()) {
                if (!document.path("kind").asText().equals("KafkaUser")
                        || !document.path("metadata").path("name").asText().equals(user)) {
                    continue;
                }
                for (JsonNode acl : document.path("spec").path("authorization").path("acls")) {
                    grants.add(grant(acl, file));
                }
                return grants;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        throw new IllegalArgumentException(file + " declares no KafkaUser " + user);
    }

    private static Grant grant(JsonNode acl, Path file) {
        JsonNode resource = acl.path("resource");
        if (!resource.path("patternType").asText("literal").equals("literal") || acl.has("type") || acl.has("host")) {
            throw new IllegalArgumentException(file + ": only literal allow rules are understood here: " + acl);
        }
        List<AclOperation> operations = new ArrayList<>();
        for (JsonNode operation : acl.path("operations")) {
            AclOperation parsed = AclOperation.fromString(operation.asText());
            if (parsed == AclOperation.UNKNOWN) {
                throw new IllegalArgumentException(file + ": unknown operation in " + acl);
            }
            operations.add(parsed);
        }
        return switch (resource.path("type").asText()) {
            case "topic" -> new Grant(ResourceType.TOPIC, resource.path("name").asText(), operations);
            case "group" -> new Grant(ResourceType.GROUP, resource.path("name").asText(), operations);
            case "cluster" -> new Grant(ResourceType.CLUSTER, "kafka-cluster", operations);
            default -> throw new IllegalArgumentException(file + ": unknown resource in " + acl);
        };
    }

    /** The folder holding deploy/: the module's parent when tests run from a module, as Maven and IDEs do. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(PROD_USERS))) {
                return dir;
            }
        }
        throw new IllegalStateException(PROD_USERS + " not found above " + Path.of("").toAbsolutePath());
    }

    /**
     * Creates those of {@code topics} that do not exist yet, as the prod overlay's {@code KafkaTopic}s do: for a
     * service whose user may write a topic but not create it.
     */
    public static void createTopics(List<NewTopic> topics) {
        asSuperUser(BackingServices.shared().kafkaBootstrapServers(), "create " + topics, admin -> {
            for (KafkaFuture<Void> created : admin.createTopics(topics).values().values()) {
                try {
                    created.get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
        });
    }

    /** {@link #createTopics(List)} with the broker's default partitions and settings. */
    public static void createTopics(String... names) {
        createTopics(Arrays.stream(names).map(name -> new NewTopic(name, Optional.empty(), Optional.empty())).toList());
    }

    static Map<String, String> connectAs(KafkaBroker broker, String user, List<Grant> grants) {
        byte[] secret = new byte[24];
        new SecureRandom().nextBytes(secret);
        String password = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        Map<String, String> settings = Map.of("kafka.bootstrap.servers", broker.saslBootstrapServers(),
                "kafka.security.protocol", "SASL_PLAINTEXT", "kafka.sasl.mechanism", "SCRAM-SHA-512",
                "kafka.sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"" + user + "\" password=\"" + password + "\";");
        Set<AclBinding> bindings = new HashSet<>();
        for (Grant grant : grants) {
            for (AclOperation operation : grant.operations()) {
                bindings.add(new AclBinding(new ResourcePattern(grant.type(), grant.name(), PatternType.LITERAL),
                        new AccessControlEntry("User:" + user, "*", operation, AclPermissionType.ALLOW)));
            }
        }
        AclBindingFilter ofUser = new AclBindingFilter(ResourcePatternFilter.ANY, new AccessControlEntryFilter(
                "User:" + user, null, AclOperation.ANY, AclPermissionType.ANY));
        asSuperUser(broker.bootstrapServers(), "create the Kafka user " + user, admin -> {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password))).all().get(30, TimeUnit.SECONDS);
            admin.deleteAcls(List.of(ofUser)).all().get(30, TimeUnit.SECONDS);
            admin.createAcls(bindings).all().get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
            // the broker answers DescribeAcls from the authorizer that enforces them
            while (!Set.copyOf(admin.describeAcls(ofUser).values().get(30, TimeUnit.SECONDS)).equals(bindings)) {
                pause(deadline, user + "'s ACLs");
            }
            awaitAuthenticated(settings, user, deadline);
        });
        return settings;
    }

    /** Runs {@code call} with an Admin client of the plaintext listener, whose clients are super users. */
    private static void asSuperUser(String bootstrap, String what, AdminCall call) {
        // started from a pool thread, the context class loader may not be the one that loaded the Kafka client
        Thread current = Thread.currentThread();
        ClassLoader previous = current.getContextClassLoader();
        current.setContextClassLoader(KafkaUsers.class.getClassLoader());
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            call.run(admin);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not " + what, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            current.setContextClassLoader(previous);
        }
    }

    private interface AdminCall {
        void run(Admin admin) throws InterruptedException, ExecutionException, TimeoutException;
    }

    /** Until the new credentials reach the listener, an authentication attempt fails. */
    private static void awaitAuthenticated(Map<String, String> settings, String user, long deadline)
            throws InterruptedException {
        Map<String, Object> client = new HashMap<>();
        settings.forEach((key, value) -> client.put(key.substring("kafka.".length()), value));
        client.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000);
        client.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        List<String> failures = new ArrayList<>();
        while (true) {
            try (Admin asUser = Admin.create(client)) {
                asUser.describeCluster().nodes().get(10, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException | TimeoutException e) {
                failures.add(e.toString());
            }
            pause(deadline, user + " authenticating " + failures);
        }
    }

    private static void pause(long deadline, String what) throws InterruptedException {
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException("the Kafka broker did not apply " + what + " within " + READY_TIMEOUT);
        }
        Thread.sleep(100);
    }
}
