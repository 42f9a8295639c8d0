package io.outpost.load.notification;

import java.io.IOException;
import io.outpost.testsupport.local.Readiness;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.outpost.testsupport.BackingServices;
import io.outpost.testsupport.local.OutpostStack;

/** notification-service as built ({@code target/quarkus-app}), in its own JVM on 127.0.0.1; stopped on close. */
final class NotificationServiceProcess implements AutoCloseable {

    private static final Pattern HELD = Pattern.compile("(?m)^outpost_notification_polls_held(?:\\{[^}]*\\})? ([0-9.E]+)");
    private static final Pattern COUNTER = Pattern.compile("(?m)^outpost_notification_(?:store_queries_total\\{[^}]*"
            + "query=\"([a-z_]+)\"[^}]*\\}|announcements_total\\{[^}]*origin=\"([a-z]+)\"[^}]*\\}) ([0-9.E]+)");
    /** Micrometer's collector pauses, every collector and cause: how many and their seconds. */
    private static final Pattern GC_PAUSES = Pattern.compile("(?m)^jvm_gc_pause_seconds_(count|sum)\\{[^}]*\\} ([0-9.E]+)");
    /**
     * What the heap allocated: Micrometer's counter grows at each young collection by what the young generation took
     * since the one before; what eden holds now is what was allocated since the last (a young collection empties it).
     */
    private static final Pattern ALLOCATED =
            Pattern.compile("(?m)^jvm_gc_memory_allocated_bytes_total(?:\\{[^}]*\\})? ([0-9.E]+)");
    private static final Pattern EDEN_USED =
            Pattern.compile("(?m)^jvm_memory_used_bytes\\{[^}]*id=\"[^\"]*Eden[^\"]*\"[^}]*\\} ([0-9.E]+)");
    /**
     * The ingest's histograms (IngestMetrics): {@code outpost_ingest_record_delay_seconds} by stage and
     * {@code outpost_ingest_batch_store_seconds}, one cumulative bucket per line.
     */
    private static final Pattern INGEST_BUCKET = Pattern.compile("(?m)^outpost_ingest_(record_delay|batch_store)"
            + "_seconds_bucket\\{([^}]*)\\} ([0-9.E]+)");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");
    /** "  12:   3456   789012  java.lang.String (java.base@17)": bytes and class name. */
    private static final Pattern HISTOGRAM_ROW = Pattern.compile("(?m)^\\s*\\d+:\\s+\\d+\\s+(\\d+)\\s+(\\S+)");
    /** A generation's (or G1's whole heap's) line of jcmd GC.heap_info; Metaspace lines say no total. */
    private static final Pattern HEAP_USED = Pattern.compile("total \\d+K, used (\\d+)K");

    private final Process process;
    private final int port;
    private final Path log;
    private final HttpClient http = HttpClient.newHttpClient();

    private NotificationServiceProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    static NotificationServiceProcess start(Path root, BackingServices backing, String jwksUrl, int port, Path log,
            List<String> jvmOptions) throws IOException, InterruptedException {
        return start(root, backing, jwksUrl, port, log, jvmOptions, Map.of());
    }

    /** As above, with extra environment variables (settings of the service). */
    static NotificationServiceProcess start(Path root, BackingServices backing, String jwksUrl, int port, Path log,
            List<String> jvmOptions, Map<String, String> extraEnv) throws IOException, InterruptedException {
        Path app = Path.of(System.getProperty("server.app", OutpostStack.app(root, "notification-service").toString()));
        Process process = OutpostStack.launch(app, Path.of(javaHome()), root, port, backing.postgres(),
                backing.kafkaBootstrapServers(), jwksUrl, jvmOptions, extraEnv, log);
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroy, "stop-notification-service"));
        NotificationServiceProcess service = new NotificationServiceProcess(process, port, log);
        service.awaitReady();
        return service;
    }

    /** The JDK the service runs on: {@code -Dserver.java.home}, else the benchmark's own. */
    private static String javaHome() {
        return System.getProperty("server.java.home", System.getProperty("java.home"));
    }

    int port() {
        return port;
    }

    long pid() {
        return process.pid();
    }

    /** Resident set size, in KiB. */
    long rssKib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid() + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IOException("no VmRSS for " + pid());
    }

    /** User plus system CPU time, in clock ticks (1/100 s). */
    long cpuTicks() throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid() + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    /** Open file descriptors of the server process. */
    long openFiles() throws IOException {
        try (var files = Files.list(Path.of("/proc/" + pid() + "/fd"))) {
            return files.count();
        }
    }

    /** Heap in use right after a full collection, in KiB. */
    long heapAfterGcKib() throws IOException, InterruptedException {
        jcmd("GC.run");
        Matcher used = HEAP_USED.matcher(jcmd("GC.heap_info"));
        long sum = -1;
        while (used.find()) { // G1: one line for the heap; Serial and Parallel: one per generation
            sum = Math.max(sum, 0) + Long.parseLong(used.group(1));
        }
        return sum;
    }

    /** Dumps the live heap (after a full collection) to {@code file}; answers jcmd's words. */
    String heapDump(Path file) throws IOException, InterruptedException {
        return jcmd("GC.heap_dump " + file.toAbsolutePath()).strip();
    }

    /** Live objects by class after a full collection: class name → bytes (jcmd GC.class_histogram). */
    Map<String, Long> classHistogram() throws IOException, InterruptedException {
        Map<String, Long> bytes = new java.util.HashMap<>();
        Matcher row = HISTOGRAM_ROW.matcher(jcmd("GC.class_histogram"));
        while (row.find()) {
            bytes.merge(row.group(2), Long.parseLong(row.group(1)), Long::sum);
        }
        return bytes;
    }

    /** The service's own gauge of held polls. */
    long heldPolls() throws IOException, InterruptedException {
        HttpRequest metrics = HttpRequest.newBuilder(URI.create(url() + "/q/metrics")).timeout(Duration.ofSeconds(60)).build();
        Matcher held = HELD.matcher(http.send(metrics, HttpResponse.BodyHandlers.ofString()).body());
        return held.find() ? (long) Double.parseDouble(held.group(1)) : -1;
    }

    /**
     * The counters of the poll path (announcements received, queries by kind) and the JVM's collector pauses so
     * far ({@code gc_pauses_count}, {@code gc_pauses_sum} in seconds; {@code allocated_bytes}, see {@link #ALLOCATED}),
     * and the ingest's histogram buckets ({@code ingest|record_delay.consumed|0.005}: the count at or under 5 ms;
     * {@link #quantile} reads them).
     */
    Map<String, Double> counters() throws IOException, InterruptedException {
        HttpRequest metrics = HttpRequest.newBuilder(URI.create(url() + "/q/metrics")).timeout(Duration.ofSeconds(60)).build();
        String body = http.send(metrics, HttpResponse.BodyHandlers.ofString()).body();
        Map<String, Double> counters = new java.util.HashMap<>();
        Matcher m = COUNTER.matcher(body);
        while (m.find()) {
            // announcements: those of other instances (which may cost a query); announcements_self: skipped
            counters.put(m.group(1) != null ? m.group(1)
                    : "other".equals(m.group(2)) ? "announcements" : "announcements_" + m.group(2),
                    Double.parseDouble(m.group(3)));
        }
        Matcher bucket = INGEST_BUCKET.matcher(body);
        while (bucket.find()) {
            String stage = "";
            String le = null;
            for (Matcher label = LABEL.matcher(bucket.group(2)); label.find();) {
                if (label.group(1).equals("stage")) {
                    stage = "." + label.group(2);
                } else if (label.group(1).equals("le")) {
                    le = label.group(2);
                }
            }
            counters.merge("ingest|" + bucket.group(1) + stage + "|" + le, Double.parseDouble(bucket.group(3)), Double::sum);
        }
        Matcher gc = GC_PAUSES.matcher(body);
        while (gc.find()) {
            counters.merge("gc_pauses_" + gc.group(1), Double.parseDouble(gc.group(2)), Double::sum);
        }
        for (Matcher allocated = ALLOCATED.matcher(body); allocated.find();) {
            counters.merge("allocated_bytes", Double.parseDouble(allocated.group(1)), Double::sum);
        }
        for (Matcher eden = EDEN_USED.matcher(body); eden.find();) {
            counters.merge("allocated_bytes", Double.parseDouble(eden.group(1)), Double::sum);
        }
        return counters;
    }

    /**
     * The {@code q} quantile, in milliseconds, of histogram {@code name} (e.g. {@code record_delay.stored}) from
     * bucket counts such as {@link #counters()} gives, or their differences over a window: linear within the bucket
     * it falls in; NaN when the window counted nothing, infinite when it falls past the last bound.
     */
    static double quantile(Map<String, Double> buckets, String name, double q) {
        java.util.TreeMap<Double, Double> cumulative = new java.util.TreeMap<>();
        String prefix = "ingest|" + name + "|";
        buckets.forEach((key, count) -> {
            if (key.startsWith(prefix)) {
                String le = key.substring(prefix.length());
                cumulative.put(le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le) * 1000, count);
            }
        });
        if (cumulative.isEmpty() || cumulative.lastEntry().getValue() <= 0) {
            return Double.NaN;
        }
        double rank = q * cumulative.lastEntry().getValue();
        double lower = 0;
        double below = 0;
        for (Map.Entry<Double, Double> bound : cumulative.entrySet()) {
            if (bound.getValue() >= rank) {
                if (bound.getKey().isInfinite()) {
                    return bound.getKey();
                }
                double inBucket = bound.getValue() - below;
                return lower + (bound.getKey() - lower) * (inBucket <= 0 ? 1 : (rank - below) / inBucket);
            }
            lower = bound.getKey();
            below = bound.getValue();
        }
        return Double.POSITIVE_INFINITY;
    }

    private String jcmd(String command) throws IOException, InterruptedException {
        Process jcmd = new ProcessBuilder(Path.of(javaHome(), "bin", "jcmd").toString(),
                Long.toString(pid()), command).redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        jcmd.waitFor(60, TimeUnit.SECONDS);
        return out;
    }

    String url() {
        return "http://127.0.0.1:" + port;
    }

    private void awaitReady() throws IOException, InterruptedException {
        Readiness.await("notification-service", url(), process, log, Duration.ofMinutes(3));
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
