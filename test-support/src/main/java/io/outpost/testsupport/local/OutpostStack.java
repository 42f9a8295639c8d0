package io.outpost.testsupport.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.outpost.testsupport.FreePorts;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.outpost.testsupport.ProcessFreeze;
import io.vertx.core.Vertx;

/**
 * The three services, each started from its built {@code quarkus-app} in a JVM of its own, against given
 * backing services, behind a {@link Gateway}. Used by {@code ./run-local} (fixed ports) and by the end-to-end
 * tests (free ports).
 */
public final class OutpostStack implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(180);
    /** How long the gateway may take, once the services are gone, to relay the answers they gave on their way out. */
    private static final Duration GATEWAY_DRAIN = Duration.ofSeconds(5);

    /** One service and the port it listens on. */
    public record Service(String name, int port) {
        public String url() {
            return "http://127.0.0.1:" + port;
        }
    }

    private final Path root;
    private final Path logs;
    private final BackingServices backing;
    private final List<Service> services;
    private final int gatewayPort;
    private final Map<String, Map<String, String>> extraEnv = new LinkedHashMap<>();
    private final Map<Service, Process> running = new LinkedHashMap<>();
    private Consumer<String> progress = line -> { };
    private Vertx vertx;
    private Gateway gateway;

    /**
     * @param root        the repository root (holds each service's {@code target/quarkus-app})
     * @param logs        where each service's output goes
     * @param ports       auth, notification and history ports
     * @param gatewayPort 0 for a free port (chosen now: the services are told their public address before they start)
     */
    public OutpostStack(Path root, Path logs, BackingServices backing, int[] ports, int gatewayPort) {
        this.root = root;
        this.logs = logs;
        this.backing = backing;
        this.services = List.of(new Service("auth-service", ports[0]), new Service("notification-service", ports[1]),
                new Service("history-service", ports[2]));
        this.gatewayPort = gatewayPort == 0 ? FreePorts.pick() : gatewayPort;
    }


    /** Reports each step ("starting auth-service", "auth-service ready on …"). */
    public OutpostStack progress(Consumer<String> progress) {
        this.progress = progress;
        return this;
    }

    /** An extra environment variable for one service (e.g. where its extra configuration file is). */
    public OutpostStack env(String service, String name, String value) {
        extraEnv.computeIfAbsent(service, s -> new LinkedHashMap<>()).put(name, value);
        return this;
    }

    public List<Service> services() {
        return services;
    }

    public Service service(String name) {
        return services.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    /** The public base URL: every service is told it (issuer, discovery), as an ingress host is in Kubernetes. */
    public String gatewayUrl() {
        return "http://127.0.0.1:" + gatewayPort;
    }

    /** Starts every service, waits until each is ready, then opens the gateway. */
    public OutpostStack start() throws IOException, InterruptedException {
        Files.createDirectories(logs);
        PostgresConnection pg = backing.postgres();
        for (Service service : services) {
            progress.accept("starting " + service.name() + " (log: " + log(service) + ")");
            running.put(service, launch(service, pg, Map.of()));
        }
        for (Service service : services) {
            awaitReady(service);
        }
        vertx = Vertx.vertx();
        gateway = new Gateway(vertx, Gateway.outpostRoutes(services.get(0).port(), services.get(1).port(),
                services.get(2).port()));
        try {
            gateway.listen("127.0.0.1", gatewayPort).toCompletionStage().toCompletableFuture().get();
        } catch (ExecutionException e) {
            throw new IOException("the gateway cannot listen on :" + gatewayPort + ": " + e.getCause().getMessage());
        }
        progress.accept("gateway ready on " + gatewayUrl()
                + " (/users, /.well-known -> auth; /notification -> notification; /v1/history -> history)");
        return this;
    }

    /**
     * Kills one service with SIGKILL (no shutdown hook, no answer to held polls, nothing committed that was not
     * already) and returns once its process is gone.
     */
    public synchronized void kill(String name) throws InterruptedException {
        Process process = running.get(service(name));
        if (process != null) {
            process.destroyForcibly();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + " survived SIGKILL for 30 s");
            }
        }
    }

    /**
     * Kills one replica with SIGKILL, as {@link #kill(String)} does a service's first instance. The gateway is not
     * told (a lost pod stays an endpoint until its readiness fails): its connections are refused, and requests go to
     * the other instances.
     */
    public synchronized void kill(Service replica) throws InterruptedException {
        Process process = running.remove(replica);
        if (process != null) {
            process.destroyForcibly();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(replica + " survived SIGKILL for 30 s");
            }
        }
    }

    /**
     * Starts one more instance of a service — same package, same configuration, its own free port — as a second
     * replica is in Kubernetes (it shares the consumer group and the database); returns once it is ready. The
     * gateway keeps routing to the first instance unless told otherwise ({@link #route}); the replica is stopped
     * with the stack, or by {@link #stop} and {@link #drain}.
     */
    public synchronized Service replica(String name) throws IOException, InterruptedException {
        return replica(name, Map.of());
    }

    /** {@link #replica(String)} with environment variables of its own besides the service's. */
    public synchronized Service replica(String name, Map<String, String> env) throws IOException, InterruptedException {
        return replicas(List.of(name), Map.of(name, env)).get(0);
    }

    /**
     * Starts one more instance of each named service side by side (each with its own environment variables from
     * {@code env}, if any), and returns them, in order, once all are ready.
     */
    public synchronized List<Service> replicas(List<String> names, Map<String, Map<String, String>> env)
            throws IOException, InterruptedException {
        List<Service> started = new ArrayList<>();
        for (String name : names) {
            Service replica = new Service(service(name).name(), FreePorts.pick());
            progress.accept("starting a replica of " + name + " on " + replica.url());
            running.put(replica, launch(replica, backing.postgres(), env.getOrDefault(name, Map.of())));
            started.add(replica);
        }
        for (Service replica : started) {
            awaitReady(replica);
        }
        return started;
    }

    /** Puts a replica behind the gateway beside its service's first instance: requests go to each in turn. */
    public synchronized void route(Service replica) {
        gateway.addInstance(service(replica.name()).port(), replica.port());
    }

    /**
     * Drains one replica as Kubernetes does a pod: the gateway sends it no new request (its endpoint is removed),
     * then after {@code preStop} (the pod's preStop pause, during which what was already routed to it arrives) it
     * gets SIGTERM — held polls answered, in-flight requests finished — and is waited for until it is gone.
     */
    public void drain(Service replica, Duration preStop) throws InterruptedException {
        synchronized (this) {
            gateway.removeInstance(replica.port());
        }
        Thread.sleep(preStop.toMillis());
        stop(replica);
    }

    /**
     * Freezes one running instance with SIGSTOP until the answer is closed (SIGCONT), as a stalled process or a
     * long pause would: its connections stay open and it sends nothing — not its commit, not its heartbeat.
     */
    public synchronized ProcessFreeze freeze(Service service) {
        Process process = running.get(service);
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException(service + " is not running");
        }
        return ProcessFreeze.process(process.pid());
    }

    /** Stops one replica with SIGTERM (its held polls are answered) and waits until it is gone. */
    public synchronized void stop(Service replica) throws InterruptedException {
        Process process = running.remove(replica);
        if (process != null) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    public synchronized boolean isRunning(String name) {
        Process process = running.get(service(name));
        return process != null && process.isAlive();
    }

    /** Starts one service again, on its port and with its configuration, unless it runs; returns once it is ready. */
    public synchronized void restart(String name) throws IOException, InterruptedException {
        Service service = service(name);
        if (isRunning(name)) {
            return;
        }
        progress.accept("restarting " + name);
        running.put(service, launch(service, backing.postgres(), Map.of()));
        awaitReady(service);
    }

    /**
     * Starts one service again, as {@link #restart} does, but returns once it has started (liveness UP), ready or
     * not: to see what a replica that cannot become ready answers.
     */
    public synchronized void restartUnready(String name) throws IOException, InterruptedException {
        Service service = service(name);
        if (isRunning(name)) {
            return;
        }
        progress.accept("restarting " + name + " (not waiting for readiness)");
        running.put(service, launch(service, backing.postgres(), Map.of()));
        Readiness.awaitLive(service.name(), service.url(), running.get(service), log(service), READY_TIMEOUT);
    }

    private void awaitReady(Service service) throws IOException, InterruptedException {
        Readiness.await(service.name(), service.url(), running.get(service), log(service), READY_TIMEOUT);
        progress.accept(service.name() + " ready on " + service.url());
    }

    private Process launch(Service service, PostgresConnection pg, Map<String, String> own) throws IOException {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("OUTPOST_SECURITY_ISSUER", gatewayUrl());
        if (service.name().equals("auth-service")) {
            env.put("OUTPOST_AUTH_PUBLIC_BASE_URL", gatewayUrl());
        }
        env.putAll(extraEnv.getOrDefault(service.name(), Map.of()));
        env.putAll(own);
        return launch(app(root, service.name()), javaHome(), root, service.port(), pg, backing.kafkaBootstrapServers(),
                services.get(0).url() + "/users/v1/publickeys", List.of("-Xmx512m", "-XX:+UseSerialGC"), env,
                log(service));
    }

    /** A service as built: {@code <root>/<name>/target/quarkus-app/quarkus-run.jar}. */
    public static Path app(Path root, String name) {
        return root.resolve(name).resolve("target/quarkus-app/quarkus-run.jar");
    }

    /** The JDK this JVM runs on, which the services run on unless told otherwise. */
    public static Path javaHome() {
        return Path.of(System.getProperty("java.home"));
    }

    /**
     * One packaged service ({@code app}) on the JDK at {@code javaHome}, in a JVM of its own in {@code workDir} on
     * 127.0.0.1:{@code port}, against the given PostgreSQL and Kafka, verifying tokens from {@code jwksUrl};
     * {@code env} is applied last (a service's own settings), its output appended to {@code log}. The local stack's
     * way to start a service, and the benchmarks'.
     */
    public static Process launch(Path app, Path javaHome, Path workDir, int port, PostgresConnection pg, String kafka,
            String jwksUrl, List<String> jvmOptions, Map<String, String> env, Path log) throws IOException {
        if (!Files.exists(app)) {
            throw new IOException(app + " is missing: build first (./mvnw package -DskipTests)");
        }
        List<String> command = new java.util.ArrayList<>();
        command.add(javaHome.resolve("bin").resolve("java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", app.toString()));
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Map<String, String> variables = builder.environment();
        variables.put("QUARKUS_HTTP_PORT", Integer.toString(port));
        variables.put("QUARKUS_HTTP_HOST", "127.0.0.1");
        variables.put("QUARKUS_DATASOURCE_REACTIVE_URL", pg.reactiveUrl());
        variables.put("QUARKUS_DATASOURCE_USERNAME", pg.username());
        variables.put("QUARKUS_DATASOURCE_PASSWORD", pg.password());
        variables.put("KAFKA_BOOTSTRAP_SERVERS", kafka);
        variables.put("OUTPOST_SECURITY_JWKS_URL", jwksUrl);
        variables.put("QUARKUS_LOG_CONSOLE_JSON_ENABLED", "false");
        variables.putAll(env);
        return builder.start();
    }

    public Path log(Service service) {
        return logs.resolve(service.equals(service(service.name())) ? service.name() + ".log"
                : service.name() + "-" + service.port() + ".log");
    }

    /**
     * Stops each service (SIGTERM: held polls are answered), forcing after 30 s, then closes the gateway once it has
     * relayed those last answers (at most {@link #GATEWAY_DRAIN} after the services are gone). In this order a client
     * of the gateway sees its held poll answered; the other way round it would see the connection close.
     */
    @Override
    public synchronized void close() {
        running.values().forEach(Process::destroy);
        for (Process process : running.values()) {
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        running.clear();
        if (vertx != null) {
            Vertx closing = vertx;
            vertx = null;
            try {
                gateway.idle(GATEWAY_DRAIN).transform(idle -> closing.close()).toCompletionStage().toCompletableFuture()
                        .get(GATEWAY_DRAIN.toSeconds() + 10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                progress.accept("the gateway did not close cleanly: " + e);
            }
        }
    }
}
