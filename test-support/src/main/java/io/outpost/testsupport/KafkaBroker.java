package io.outpost.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * A real Apache Kafka broker (KRaft, broker and controller in one node) in its own JVM, started from the
 * jars that the {@code kafka-broker} module lists: a cluster of its own, or one node of a {@link KafkaCluster}. Its storage is formatted once per directory, so a broker
 * can be stopped and started again on the same data and ports (restart tests, a local stack's second run).
 *
 * <p>The running broker is known by its pid, kept in {@code broker.pid} in its directory, not by a
 * {@code Process} object: {@link #attach} gives the same control (stop, start, pause) from any class loader of
 * the JVM, and the broker follows the JVM that launched it (it stops when that JVM ends), not an object of it.
 */
public final class KafkaBroker implements AutoCloseable {

    private static final String CLASSPATH_RESOURCE = "outpost-kafka-broker.classpath";
    private static final String LAUNCHER_PID = "outpost.broker.launcher-pid"; // BrokerMain.LAUNCHER_PID
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

    private final Path directory;
    private final BrokerConfig config;
    private final int port;
    /** The cluster id its storage is formatted with, the first time; null for a random one. */
    private final String clusterId;

    private KafkaBroker(Path directory, BrokerConfig config, String clusterId) {
        this.directory = directory;
        this.config = config;
        this.port = config.port();
        this.clusterId = clusterId;
    }

    /**
     * @param directory holds the configuration, the log and the data
     * @param port      the client port; 0 picks a free one (fixed for the life of this object)
     */
    public static KafkaBroker create(Path directory, int port) throws IOException {
        Files.createDirectories(directory);
        return new KafkaBroker(directory,
                BrokerConfig.single(port == 0 ? FreePorts.pick() : port, FreePorts.pick(), FreePorts.pick()), null);
    }

    /** One node of a {@link KafkaCluster}: {@code config} places it in the quorum, all formatted with {@code clusterId}. */
    static KafkaBroker member(Path directory, BrokerConfig config, String clusterId) throws IOException {
        Files.createDirectories(directory);
        return new KafkaBroker(directory, config, clusterId);
    }

    /** Control of the broker that was {@linkplain #create created} on {@code directory} (its ports are kept there). */
    public static KafkaBroker attach(Path directory) throws IOException {
        return new KafkaBroker(directory, BrokerConfig.read(directory.resolve("server.properties")), null);
    }

    /** The plaintext listener: no authentication, and its clients are super users (every test's and tool's). */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /**
     * The SASL listener: SCRAM-SHA-512 without TLS, its clients bound by ACLs as on the prod overlay's listener
     * ({@link KafkaUsers} creates users and grants).
     */
    public String saslBootstrapServers() {
        return "127.0.0.1:" + config.saslPort();
    }

    public Path directory() {
        return directory;
    }

    /** Whether this broker's process runs (a paused one counts as running). */
    public boolean isRunning() {
        return process().isPresent();
    }

    /** Starts the broker and returns once it answers an Admin request. */
    public synchronized void start() throws IOException {
        if (isRunning()) {
            return;
        }
        Path config = writeConfig();
        // the long classpath goes into an argument file: the command line stays short enough to be read back
        // whole from /proc (the JDK reads 4 KiB of it), which is how process() recognises this broker
        Path classpath = directory.resolve("classpath.args");
        Files.writeString(classpath, "-cp \"" + brokerClasspath() + "\"\n", StandardCharsets.UTF_8);
        if (!Files.exists(directory.resolve("data").resolve("meta.properties"))) {
            run(List.of(java(), "@" + classpath, "kafka.tools.StorageTool", "format", "--ignore-formatted",
                    "-t", clusterId != null ? clusterId : clusterId(), "-c", config.toString()), directory.resolve("format.log"));
        }
        List<String> command = new ArrayList<>(List.of(java(), "-Xms64m", "-Xmx512m", "-XX:+UseSerialGC",
                "-Djava.awt.headless=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-D" + LAUNCHER_PID + "=" + ProcessHandle.current().pid(),
                "@" + classpath, "io.outpost.kafkabroker.BrokerMain", config.toString()));
        Path log = directory.resolve("broker.log");
        Process started = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        Files.writeString(pidFile(), Long.toString(started.pid()), StandardCharsets.UTF_8);
        awaitReady(started.toHandle(), log);
    }

    /** Stops the broker (controlled shutdown, forced after 20 s); its data and ports stay for a later start. */
    public synchronized void stop() {
        Optional<ProcessHandle> running = process();
        if (running.isPresent()) {
            ProcessHandle broker = running.get();
            Signals.resume(broker); // a paused broker would not shut down
            broker.destroy();
            if (!awaitExit(broker, STOP_TIMEOUT)) {
                broker.destroyForcibly();
                awaitExit(broker, Duration.ofSeconds(10));
            }
        }
        try {
            Files.deleteIfExists(pidFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** SIGKILL, as a node that is lost: no controlled shutdown, no leadership handed over; its data stays. */
    public synchronized void kill() {
        Optional<ProcessHandle> running = process();
        if (running.isPresent()) {
            running.get().destroyForcibly();
            if (!awaitExit(running.get(), Duration.ofSeconds(30))) {
                throw new IllegalStateException("the Kafka broker in " + directory + " survived SIGKILL for 30 s");
            }
        }
    }

    /** Its {@code node.id} (1 for a broker that is the whole cluster). */
    public int nodeId() {
        return config.nodeId();
    }

    /** SIGSTOP: the broker keeps its connections open and answers nothing (a network partition). */
    public void pause() {
        process().ifPresent(Signals::pause);
    }

    /** SIGCONT; harmless when not paused. */
    public void resume() {
        process().ifPresent(Signals::resume);
    }

    @Override
    public void close() {
        stop();
    }

    private static boolean awaitExit(ProcessHandle process, Duration timeout) {
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException | ExecutionException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private Path pidFile() {
        return directory.resolve("broker.pid");
    }

    /** The running broker of this directory; a stale pid file (a pid reused by another process) is ignored. */
    private Optional<ProcessHandle> process() {
        try {
            long pid = Long.parseLong(Files.readString(pidFile(), StandardCharsets.UTF_8).strip());
            String config = directory.resolve("server.properties").toString();
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .filter(p -> p.info().commandLine().map(line -> line.contains(config)).orElse(false));
        } catch (IOException | NumberFormatException absent) {
            return Optional.empty();
        }
    }

    private Path writeConfig() throws IOException {
        Path file = directory.resolve("server.properties");
        config.write(file, directory);
        return file;
    }

    private void awaitReady(ProcessHandle broker, Path log) throws IOException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (!portOpen()) {
            checkAlive(broker, log, deadline);
            sleep(100);
        }
        // started from a pool thread, the context class loader may not be the one that loaded the Kafka client,
        // and its reporters (JmxReporter) then fail to load
        Thread current = Thread.currentThread();
        ClassLoader previous = current.getContextClassLoader();
        current.setContextClassLoader(KafkaBroker.class.getClassLoader());
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000))) {
            while (true) {
                try {
                    if (!admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (Exception notYet) {
                    // the broker accepts connections before its metadata is ready
                }
                checkAlive(broker, log, deadline);
                sleep(100);
            }
        } finally {
            current.setContextClassLoader(previous);
        }
    }

    private void checkAlive(ProcessHandle broker, Path log, long deadline) throws IOException {
        if (!broker.isAlive() || System.nanoTime() > deadline) {
            String reason = broker.isAlive() ? "did not become ready within " + READY_TIMEOUT : "exited";
            stop();
            throw new IOException("Kafka broker " + reason + "; last lines of " + log + ":\n" + tail(log));
        }
    }

    private boolean portOpen() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void run(List<String> command, Path log) throws IOException {
        Process tool = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        try {
            if (!tool.waitFor(60, TimeUnit.SECONDS) || tool.exitValue() != 0) {
                tool.destroyForcibly();
                throw new IOException("Kafka storage format failed; " + log + ":\n" + tail(log));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while formatting Kafka storage", e);
        }
    }

    /** The broker jars listed by the kafka-broker module, plus that module's own classes. */
    static String brokerClasspath() throws IOException {
        URL resource = KafkaBroker.class.getClassLoader().getResource(CLASSPATH_RESOURCE);
        if (resource == null) {
            throw new IOException(CLASSPATH_RESOURCE + " is not on the classpath: build the kafka-broker module");
        }
        String listed;
        try (InputStream in = resource.openStream()) {
            listed = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        }
        return listed + java.io.File.pathSeparator + ownLocation(resource);
    }

    private static String ownLocation(URL resource) {
        String url = resource.toString();
        try {
            if (url.startsWith("jar:")) {
                return Path.of(new URL(url.substring(4, url.indexOf("!/"))).toURI()).toString();
            }
            return Path.of(resource.toURI()).getParent().toString();
        } catch (URISyntaxException | IOException e) {
            throw new IllegalStateException("cannot locate the kafka-broker module from " + url, e);
        }
    }

    /** A new random cluster id, as {@code kafka-storage random-uuid} makes one. */
    static String clusterId() {
        byte[] bytes = new byte[16];
        String id;
        do {
            new SecureRandom().nextBytes(bytes);
            id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        } while (id.startsWith("-"));
        return id;
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the Kafka broker", e);
        }
    }
}
