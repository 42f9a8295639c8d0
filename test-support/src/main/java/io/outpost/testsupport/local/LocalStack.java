package io.outpost.testsupport.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.outpost.testsupport.BackingServices;

/**
 * The whole Outpost stack on one machine ({@code ./run-local}): PostgreSQL and Kafka (embedded unless the
 * environment names external ones, see {@link BackingServices}), the three services, and the gateway on
 * :8080, each reported as it becomes ready; then the demo client and copy-paste curl lines. Data lives under
 * {@code .outpost-local/} and is reused by the next run. Ctrl-C stops the services (held polls are answered,
 * through the gateway), then the gateway, then the backing services.
 */
public final class LocalStack {

    static final int POSTGRES_PORT = 15432;
    static final int KAFKA_PORT = 19092;
    static final int GATEWAY_PORT = 8080;
    static final int[] SERVICE_PORTS = { 8081, 8082, 8083 };
    /** auth-service's private admin API (docs/deploy.md, "The admin API"): not behind the gateway. */
    static final int ADMIN_PORT = 8084;

    private final Path root;
    private final Path data;
    private volatile boolean stopping;
    private BackingServices backing;
    private OutpostStack stack;

    private LocalStack(Path root) {
        this.root = root;
        this.data = root.resolve(".outpost-local");
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args.length > 1 && args[0].equals("--root") ? args[1] : ".").toAbsolutePath().normalize();
        LocalStack local = new LocalStack(root);
        Runtime.getRuntime().addShutdownHook(new Thread(local::stop, "outpost-local-stop"));
        try {
            local.start();
        } catch (Exception e) {
            if (!local.stopping) {
                System.err.println("[outpost] start-up failed: " + e.getMessage());
                System.exit(1);
            }
        }
        Thread.currentThread().join();
    }

    private void start() throws IOException, InterruptedException {
        Files.createDirectories(data);
        Demo demo = Demo.loadOrCreate(data);
        say("starting PostgreSQL (:" + POSTGRES_PORT + ") and Kafka (:" + KAFKA_PORT + "), data in " + data);
        backing = BackingServices.start(data.resolve("postgres"), POSTGRES_PORT, data.resolve("kafka"), KAFKA_PORT);
        say("PostgreSQL ready at " + backing.postgres().reactiveUrl() + ", Kafka ready at "
                + backing.kafkaBootstrapServers());
        stack = new OutpostStack(root, data.resolve("logs"), backing, SERVICE_PORTS, GATEWAY_PORT)
                .progress(LocalStack::say)
                .env("auth-service", "QUARKUS_CONFIG_LOCATIONS", demo.writeAuthConfig(data).toString())
                .env("auth-service", "OUTPOST_AUTH_ADMIN_PORT", Integer.toString(ADMIN_PORT))
                .start();
        String base = stack.gatewayUrl();
        say("Outpost is up at " + base + ". Ctrl-C stops everything; data stays in " + data + " for the next run.");
        System.out.printf("%n  demo client  %s / %s  (player %s)%n", demo.clientId(), demo.clientSecret(), demo.player());
        System.out.printf("  tools client %s / %s  (sandbox %s)%n", demo.toolsId(),
                demo.toolsSecret(), demo.sandbox());
        System.out.printf("  admin client %s / %s  (auth:clients:admin; the admin API is private: "
                + "http://127.0.0.1:%d/users/v1/admin/clients, docs/auth.md)%n", demo.adminId(), demo.adminSecret(),
                ADMIN_PORT);
        System.out.printf("  demo sandbox %s   (./demo-traffic publishes notifications and history for these)%n%n",
                demo.sandbox());
        System.out.println("  # 1. a token for the demo client, and one for the tools client");
        printTokenLine("TOKEN", demo.clientId(), demo.clientSecret(), base);
        printTokenLine("TOOLS_TOKEN", demo.toolsId(), demo.toolsSecret(), base);
        System.out.println("  # 2. the demo player's notifications (long poll, up to 30 s)");
        System.out.printf("  curl -s -H \"Authorization: Bearer $TOKEN\" "
                + "'%s/notification/v1/player/me/stream/notification/lp?offset_reset_strategy=earliest'%n", base);
        System.out.println("  # 3. the demo sandbox's role history (the tools client's token: a game client reads none)");
        System.out.printf("  curl -s -H \"Authorization: Bearer $TOOLS_TOKEN\" '%s/v1/history/sandbox/%s/role'%n%n",
                base, demo.sandbox());
    }

    /** A copy-paste line that asks for a token of {@code clientId} and keeps it in the shell variable {@code name}. */
    private static void printTokenLine(String name, String clientId, String secret, String base) {
        System.out.printf("  %s=$(curl -s -u '%s:%s' -H 'Content-Type: application/json' "
                + "-d '{\"grant_type\":\"client_credentials\"}' %s/users/v2/oauth/token "
                + "| sed -E 's/.*\"access_token\":\"([^\"]+)\".*/\\1/')%n", name, clientId, secret, base);
    }

    private synchronized void stop() {
        stopping = true;
        if (stack != null) {
            say("stopping the services, then the gateway");
            stack.close();
            stack = null;
        }
        if (backing != null) {
            say("stopping Kafka and PostgreSQL");
            backing.close();
            backing = null;
            say("stopped");
        }
    }

    static void say(String line) {
        System.out.println("[outpost] " + line);
        System.out.flush();
    }
}
