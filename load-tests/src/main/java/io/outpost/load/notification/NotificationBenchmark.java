package io.outpost.load.notification;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

import io.outpost.model.Permissions;
import io.outpost.model.Topics;
import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.PostgresConnection;
import io.outpost.testsupport.TestTokens;

/**
 * Notification delivery in one bounded run on loopback (docs/benchmarks.md): (c) ingest rate of a backlog, (b)
 * delivery latency Kafka produce → HTTP answer with many polls held at each of several steady produce rates,
 * beside Kafka's own produce → consume latency in the same run, (a) the most idle polls held, with RSS, heap and
 * CPU. With {@code -Dreplicas=2} two instances share the consumer group and the polls (player i on instance
 * i mod 2), so about half the deliveries cross instances through PostgreSQL's announcements; each instance's
 * queries per announcement are reported. Settings: -Dingest=200000 -Dheld=10000 -Drates=1000,5000 -Dseconds=30
 * -Didle=19000 -Dreplicas=1 -Dwarmup=180 -Dserver.jvm="-Xmx1g"; -Dramps=2 opens the held polls again, for new
 * players, on the warm instance (with -Dramp.fresh=true on a new one); -Dserver.java.home runs the service on another JDK,
 * an empty -Drates skips (b), -Dheapdump=/path.hprof dumps the live heap with every idle poll held;
 * -Dclient.headers=ingress sends the headers a poll carries through an ingress ({@link PollClients}). Each latency
 * run prints the service's collector pauses within its window, which is where the p99 goes on a 2-core box.
 */
public final class NotificationBenchmark {

    private static final int INGEST = Integer.getInteger("ingest", 200_000);
    /**
     * Stored before the timed backlog: a JVM that just started spends most of a core compiling (JFR: C1 + C2
     * threads ≈ 0.8 of a core in the first seconds), so a backlog timed from the first row measures the JIT
     * as much as the ingest. The cold rate is printed too (a restarted instance meets its backlog cold).
     */
    private static final int INGEST_WARM = Integer.getInteger("ingest.warm", 100_000);
    private static final int HELD = Integer.getInteger("held", 10_000);
    private static final List<Integer> RATES = java.util.Arrays.stream(System.getProperty("rates",
            System.getProperty("rate", "1000,5000")).split(",")).map(String::strip).filter(r -> !r.isEmpty())
            .map(Integer::valueOf).toList();
    private static final int REPLICAS = Integer.getInteger("replicas", 1);
    private static final int SECONDS = Integer.getInteger("seconds", 30);
    /**
     * Seconds of each rate run before measuring: the first collections after opening many polls copy them all, and
     * the JVMs (the service's, the broker's, this one's) take minutes under load to settle — after 20 s the p99 at
     * 1,000/s read 716–2,509 ms (Kafka alone 47–57 ms), after 180 s 51–53 ms (Kafka alone 8–9 ms; docs/benchmarks.md,
     * "Decisions").
     */
    private static final int WARMUP = Integer.getInteger("warmup", 180);
    private static final int IDLE = Integer.getInteger("idle", 19_000);
    /** Ramps of new polls: the first, and {@code ramps − 1} more ({@link #rampAgain}). */
    private static final int RAMPS = Integer.getInteger("ramps", 1);

    private NotificationBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(System.getProperty("outpost.root", ".")).toAbsolutePath();
        Path work = Files.createTempDirectory("outpost-bench-notification-");
        List<String> jvm = List.of(System.getProperty("server.jvm", "-Xmx1g").split(" "));
        System.out.printf("machine: %s; server JVM %s; work dir %s%n", Files.readString(Path.of("/proc/loadavg")).strip(), jvm, work);
        System.out.println(io.outpost.load.machine.MachineCheck.line(work));
        // -Dkafka.dir=/dev/shm: the broker's log on another file system than PostgreSQL's WAL, as in production where
        // they do not share a disk (on one ext4 disk, the broker's page-cache writeback lengthens WAL fsyncs)
        Path kafkaDir = System.getProperty("kafka.dir") == null ? work.resolve("kafka")
                : Files.createTempDirectory(Path.of(System.getProperty("kafka.dir")), "outpost-bench-kafka-");
        System.out.printf("PostgreSQL in %s, Kafka in %s%n", work.resolve("pg"), kafkaDir);
        io.outpost.load.machine.WorkFolder.dropDataAtExit(work.resolve("pg"), kafkaDir);
        try (BackingServices backing = BackingServices.start(work.resolve("pg"), 0, kafkaDir, 0);
                KafkaProducer<String, String> producer = producer(backing)) {
            List<UUID> players = new ArrayList<>();
            for (int i = 0; i < Math.max(HELD, IDLE); i++) {
                players.add(UUID.randomUUID());
            }
            // (c) a backlog waiting in Kafka before the service starts
            long produceStart = System.nanoTime();
            for (int i = 0; i < INGEST_WARM + INGEST; i++) {
                String player = players.get(i % players.size()).toString();
                producer.send(new ProducerRecord<>(Topics.PLAYER_NOTIFICATIONS, player,
                        "{\"player_uuid\":\"" + player + "\",\"message\":\"backlog " + i + "\"}"));
            }
            producer.flush();
            System.out.printf("produced %,d (%,d warm-up, %,d timed) in %.1f s%n", INGEST_WARM + INGEST, INGEST_WARM,
                    INGEST, seconds(produceStart));
            List<NotificationServiceProcess> servers = new ArrayList<>();
            List<PollClients> clients = new ArrayList<>();
            try {
                for (int r = 0; r < REPLICAS; r++) {
                    servers.add(NotificationServiceProcess.start(root, backing, TestTokens.shared().jwksUrl(), 18082 + r,
                            work.resolve("notification-service-" + r + ".log"), jvm));
                }
                ingestRate(backing.postgres());
                NotificationServiceProcess server = servers.get(0);
                long baseRss = server.rssKib();
                long baseHeap = server.heapAfterGcKib();
                System.out.printf("baseline (no poll held): RSS %,d KiB, heap after GC %,d KiB, fds %d%n", baseRss,
                        baseHeap, server.openFiles());
                List<String> tokens = new ArrayList<>(tokens(players));
                for (NotificationServiceProcess each : servers) {
                    firstRequest(each, tokens.get(0));
                    clients.add(new PollClients(each.port(), Math.max(HELD, IDLE)));
                }
                long ramp = System.nanoTime();
                hold(servers, clients, players, tokens);
                System.out.printf("held %,d polls in %.1f s (2,000 new polls/s); %,d answers refused (503) and retried%n",
                        HELD, seconds(ramp), total(clients, c -> c.failed));
                for (int again = 2; again <= RAMPS; again++) {
                    server = rampAgain(again, root, backing, jvm, work, servers, clients, players, tokens);
                }
                for (int rate : RATES) {
                    latency(servers, clients, producer, players, rate, backing.kafkaBootstrapServers(), backing.postgres());
                }
                if (REPLICAS == 1) {
                    if (IDLE > HELD) { // -Didle=0 (or ≤ held): the latency runs only
                        idle(server, clients.get(0), players, tokens, baseRss, baseHeap);
                    }
                    stop(server, clients.get(0));
                }
            } finally {
                clients.forEach(PollClients::close);
                servers.forEach(NotificationServiceProcess::close);
            }
        }
    }

    /** The cold rate (first rows to the warm-up's end) and the timed one (the {@code INGEST} rows after it). */
    private static void ingestRate(PostgresConnection pg) throws Exception {
        long first = 0;
        long firstCount = 0;
        long warm = 0;
        long warmCount = 0;
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.username(), pg.password())) {
            while (System.nanoTime() < deadline) {
                long count = count(c);
                long now = System.nanoTime();
                if (first == 0 && count > 0) {
                    first = now;
                    firstCount = count;
                }
                if (warm == 0 && count >= INGEST_WARM && INGEST_WARM > 0) {
                    warm = now;
                    warmCount = count;
                    double took = (warm - first) / 1e9;
                    System.out.printf("(c) ingest, cold: %,d stored in %.2f s after the first rows: %,.0f notifications/s%n",
                            warmCount - firstCount, took, (warmCount - firstCount) / took);
                }
                if (count >= INGEST_WARM + INGEST) {
                    long from = warm == 0 ? first : warm;
                    long fromCount = warm == 0 ? firstCount : warmCount;
                    double took = (now - from) / 1e9;
                    System.out.printf("(c) ingest: %,d stored in %.2f s %s: %,.0f notifications/s%n", count - fromCount,
                            took, warm == 0 ? "after the first rows" : "after the warm-up", (count - fromCount) / took);
                    return;
                }
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("backlog not ingested within 5 minutes");
    }

    /**
     * {@code -Dramps=N}: a further ramp of {@code held} new players, each with a new token, once the first ramp's
     * clients have gone — on the same, now warm, instance, or with {@code -Dramp.fresh=true} on a new instance
     * (the load client then warm, the service cold). The new players take the first ones' places for what follows.
     * Answers the instance now measured.
     */
    private static NotificationServiceProcess rampAgain(int ramp, Path root, BackingServices backing, List<String> jvm,
            Path work, List<NotificationServiceProcess> servers, List<PollClients> clients, List<UUID> players,
            List<String> tokens) throws Exception {
        if (servers.size() != 1) {
            throw new IllegalArgumentException("-Dramps needs -Dreplicas=1");
        }
        clients.forEach(PollClients::close);
        clients.clear();
        for (int i = 0; i < 240 && servers.get(0).heldPolls() > 0; i++) {
            Thread.sleep(500);
        }
        List<UUID> fresh = new ArrayList<>();
        for (int i = 0; i < HELD; i++) {
            fresh.add(UUID.randomUUID());
        }
        List<String> freshTokens = tokens(fresh);
        for (int i = 0; i < HELD; i++) {
            players.set(i, fresh.get(i));
            tokens.set(i, freshTokens.get(i));
        }
        if (Boolean.getBoolean("ramp.fresh")) {
            servers.get(0).close();
            servers.set(0, NotificationServiceProcess.start(root, backing, TestTokens.shared().jwksUrl(), 18082 + ramp,
                    work.resolve("notification-service-ramp" + ramp + ".log"), jvm));
            firstRequest(servers.get(0), tokens.get(0));
        }
        clients.add(new PollClients(servers.get(0).port(), Math.max(HELD, IDLE)));
        long start = System.nanoTime();
        hold(servers, clients, players, tokens);
        System.out.printf("ramp %d (%s instance): held %,d polls in %.1f s; %,d answers refused (503) and retried%n",
                ramp, Boolean.getBoolean("ramp.fresh") ? "a new" : "the same", HELD, seconds(start),
                clients.get(0).failed.get());
        return servers.get(0);
    }

    /** One request first: the instance fetches the key set on first use. */
    private static void firstRequest(NotificationServiceProcess server, String token) throws Exception {
        java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                server.url() + "/notification/v1/player/me/stream/notification/lp?deadline=0"))
                .header("Authorization", "Bearer " + token).build(),
                java.net.http.HttpResponse.BodyHandlers.discarding());
    }

    /** Player i holds a poll on instance i mod replicas. */
    private static void hold(List<NotificationServiceProcess> servers, List<PollClients> clients, List<UUID> players,
            List<String> tokens) throws Exception {
        for (int i = 0; i < HELD; i++) {
            clients.get(i % servers.size()).hold(i, players.get(i), tokens.get(i), null);
            if (i % 500 == 499) {
                Thread.sleep(250); // 2,000 new polls/s: each costs a signature verification
            }
        }
        for (int r = 0; r < servers.size(); r++) {
            awaitHeld(servers.get(r), HELD / servers.size());
        }
    }

    private static void latency(List<NotificationServiceProcess> servers, List<PollClients> clients,
            KafkaProducer<String, String> producer, List<UUID> players, int rate, String bootstrap, PostgresConnection pg)
            throws Exception {
        KafkaProbe probe = new KafkaProbe(bootstrap);
        StoreProbe stored = new StoreProbe(pg);
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
        int perTick = Math.max(1, rate / 1000);
        ticker.scheduleAtFixedRate(() -> {
            for (int k = 0; k < perTick; k++) {
                String player = players.get(ThreadLocalRandom.current().nextInt(HELD)).toString();
                producer.send(new ProducerRecord<>(Topics.PLAYER_NOTIFICATIONS, player,
                        "{\"player_uuid\":\"" + player + "\",\"message\":\"" + System.nanoTime() + "\"}"));
            }
        }, 0, 1_000_000 / Math.min(rate, 1000), TimeUnit.MICROSECONDS);
        Thread.sleep(WARMUP * 1000L); // warm-up, not counted
        clients.forEach(PollClients::latencies);
        clients.forEach(PollClients::loopLags);
        probe.latencies();
        stored.latencies();
        long delivered = total(clients, c -> c.delivered);
        long answered = total(clients, c -> c.answered);
        long empty = total(clients, c -> c.answeredEmpty);
        long failed = total(clients, c -> c.failed);
        long[] cpu = new long[servers.size()];
        long[] answeredAt = new long[servers.size()];
        List<Map<String, Double>> metricsBefore = new ArrayList<>();
        for (int r = 0; r < servers.size(); r++) {
            cpu[r] = servers.get(r).cpuTicks();
            answeredAt[r] = clients.get(r).answered.get();
            metricsBefore.add(servers.get(r).counters());
        }
        Thread.sleep(SECONDS * 1000L);
        Histogram h = new Histogram(3);
        clients.forEach(c -> h.add(c.latencies()));
        Histogram lag = new Histogram(3);
        clients.forEach(c -> lag.add(c.loopLags()));
        Histogram k = probe.latencies();
        Histogram st = stored.latencies();
        probe.close();
        stored.close();
        ticker.shutdownNow();
        System.out.printf("(b) latency, %d instance(s), %,d polls held, %,d notifications/s for %d s: %,d delivered; "
                + "produce → answer p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, max %.1f ms%n",
                servers.size(), HELD, rate, SECONDS, total(clients, c -> c.delivered) - delivered,
                h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(90) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0, h.getMaxValue() / 1000.0);
        System.out.printf("    Kafka alone (produce → a plain consumer), same run: p50 %.1f ms, p99 %.1f ms%n",
                k.getValueAtPercentile(50) / 1000.0, k.getValueAtPercentile(99) / 1000.0);
        System.out.printf("    produce → committed in PostgreSQL (its announcement): p50 %.1f ms, p99 %.1f ms%n",
                st.getValueAtPercentile(50) / 1000.0, st.getValueAtPercentile(99) / 1000.0);
        // the answers are timed when this process reads them: a late event loop here is not the service's time
        System.out.printf("    answers read by the client: %,d (%,d empty); failed polls %,d%n",
                total(clients, c -> c.answered) - answered,
                total(clients, c -> c.answeredEmpty) - empty,
                total(clients, c -> c.failed) - failed);
        System.out.printf("    load client's event loop, lateness of a 10 ms timer: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                lag.getValueAtPercentile(50) / 1000.0, lag.getValueAtPercentile(99) / 1000.0, lag.getMaxValue() / 1000.0);
        for (int r = 0; r < servers.size(); r++) {
            Map<String, Double> after = servers.get(r).counters();
            Map<String, Double> before = metricsBefore.get(r);
            java.util.function.ToDoubleFunction<String> delta = key -> after.getOrDefault(key, 0.0)
                    - before.getOrDefault(key, 0.0);
            System.out.printf("    instance %d: CPU %.0f%% of one core; announcements %,.0f, queries start %,.0f, "
                    + "after %,.0f, after_many %,.0f, heads %,.0f; collector pauses %,.0f, mean %.1f ms, "
                    + "%,.0f ms in all (%.1f%% of the window); allocated %,.0f MB, %,.1f KB per answer%n", r,
                    (servers.get(r).cpuTicks() - cpu[r]) * 100.0 / (SECONDS * 100.0),
                    delta.applyAsDouble("announcements"), delta.applyAsDouble("start"), delta.applyAsDouble("after"),
                    delta.applyAsDouble("after_many"), delta.applyAsDouble("heads"), delta.applyAsDouble("gc_pauses_count"),
                    delta.applyAsDouble("gc_pauses_sum") * 1000 / Math.max(1, delta.applyAsDouble("gc_pauses_count")),
                    delta.applyAsDouble("gc_pauses_sum") * 1000, delta.applyAsDouble("gc_pauses_sum") * 100.0 / SECONDS,
                    delta.applyAsDouble("allocated_bytes") / 1e6, delta.applyAsDouble("allocated_bytes") / 1e3
                            / Math.max(1, clients.get(r).answered.get() - answeredAt[r]));
            Map<String, Double> window = new java.util.HashMap<>();
            after.keySet().forEach(key -> window.put(key, delta.applyAsDouble(key)));
            java.util.function.BiFunction<String, Double, Double> q = (name, quantile) ->
                    NotificationServiceProcess.quantile(window, name, quantile);
            // from the record's timestamp (set by this process's producer, same clock): the service's own view of
            // where the time went, beside the probes' (bucketed: every ms to 6, then 8, 10, 12, 15, 20, 25, 30, 40, 50 ms, ...)
            System.out.printf("    instance %d's ingest histograms: record → consumed p50 %.1f ms, p99 %.1f ms; "
                    + "→ stored p50 %.1f ms, p99 %.1f ms; a batch's store p50 %.1f ms, p99 %.1f ms%n", r,
                    q.apply("record_delay.consumed", 0.5), q.apply("record_delay.consumed", 0.99),
                    q.apply("record_delay.stored", 0.5), q.apply("record_delay.stored", 0.99),
                    q.apply("batch_store", 0.5), q.apply("batch_store", 0.99));
        }
        Thread.sleep(2_000); // let the last answers come and their polls be held again
    }

    /** One counter of every client, summed. */
    private static long total(List<PollClients> clients, Function<PollClients, AtomicLong> counter) {
        return clients.stream().mapToLong(c -> counter.apply(c).get()).sum();
    }

    private static void idle(NotificationServiceProcess server, PollClients clients, List<UUID> players,
            List<String> tokens, long baseRss, long baseHeap) throws Exception {
        long rssAtHeld = server.rssKib();
        long heapAtHeld = server.heapAfterGcKib();
        Map<String, Long> classesAtHeld = server.classHistogram();
        for (int i = HELD; i < IDLE; i++) {
            clients.hold(i, players.get(i), tokens.get(i), null);
            if (i % 500 == 499) {
                Thread.sleep(250);
            }
        }
        long held = awaitHeld(server, IDLE);
        Thread.sleep(3_000);
        long heap = server.heapAfterGcKib();
        long rss = server.rssKib();
        long cpu = server.cpuTicks();
        Thread.sleep(10_000);
        long idleCpu = server.cpuTicks() - cpu;
        System.out.printf("(a) idle: %,d polls held (%,d refused and retried so far); RSS %,d KiB, heap after GC %,d KiB, fds %d; "
                + "CPU over 10 s idle %.1f%% of one core%n", held, clients.failed.get(), rss, heap, server.openFiles(),
                idleCpu * 100.0 / 1000.0);
        System.out.printf("    per held poll: RSS %.1f KiB and heap %.1f KiB over the baseline; %.1f KiB and %.1f KiB "
                + "from %,d to %,d held%n", (rss - baseRss) / (double) held, (heap - baseHeap) / (double) held,
                (rss - rssAtHeld) / (double) (held - HELD), (heap - heapAtHeld) / (double) (held - HELD), HELD, held);
        Map<String, Long> classes = server.classHistogram();
        System.out.printf("    live heap per held poll by class (from %,d to %,d held), the largest:%n", HELD, held);
        classes.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - classesAtHeld.getOrDefault(e.getKey(), 0L)))
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(20)
                .forEach(e -> System.out.printf("      %7.0f B  %s%n", e.getValue() / (double) (held - HELD), e.getKey()));
        String dump = System.getProperty("heapdump");
        if (dump != null) {
            // -Dheapdump=/path.hprof: the live heap with every poll held, to see what each costs by referrer
            System.out.printf("    heap dump: %s%n", server.heapDump(Path.of(dump)));
        }
    }

    /** SIGTERM with every poll held: each should get its empty answer before the process exits. */
    private static void stop(NotificationServiceProcess server, PollClients clients) throws Exception {
        clients.stopPolling();
        long held = server.heldPolls();
        long before = clients.answeredEmpty.get();
        long start = System.nanoTime();
        server.close();
        double took = seconds(start);
        Thread.sleep(1_000);
        System.out.printf("stop: %,d polls held at SIGTERM, %,d answered with an empty page; process gone after %.1f s%n",
                held, clients.answeredEmpty.get() - before, took);
    }

    private static long awaitHeld(NotificationServiceProcess server, int expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        long held = 0;
        while (System.nanoTime() < deadline) {
            try {
                held = server.heldPolls();
            } catch (java.io.IOException busy) {
                continue; // the service is busy taking the polls on
            }
            if (held >= expected) {
                break;
            }
            Thread.sleep(500);
        }
        return held;
    }

    private static List<String> tokens(List<UUID> players) {
        long start = System.nanoTime();
        List<String> tokens = players.parallelStream().map(p -> TestTokens.shared().token()
                .permissions(Permissions.NOTIFICATION_PLAYER_SELF_READ).player(p).sign()).toList();
        System.out.printf("signed %,d tokens in %.1f s%n", tokens.size(), seconds(start));
        return tokens;
    }

    private static KafkaProducer<String, String> producer(BackingServices backing) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, backing.kafkaBootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static long count(Connection c) throws Exception {
        // the sequences handed out: one per stored row of the backlog (all ids new), read from one row per player —
        // a count(*) of the growing table every 50 ms took PostgreSQL time from the ingest it measured
        try (ResultSet rows = c.createStatement().executeQuery(
                "SELECT coalesce(sum(last_seq), 0) FROM notification.player_cursor")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static double seconds(long since) {
        return Duration.ofNanos(System.nanoTime() - since).toMillis() / 1000.0;
    }
}
