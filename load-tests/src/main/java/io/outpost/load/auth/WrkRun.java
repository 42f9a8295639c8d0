package io.outpost.load.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The same load through wrk (Debian's {@code wrk} package), the generator the peer figures of PERFORMANCE.md
 * were taken with: one wrk thread, {@code concurrency} keep-alive connections, latency distribution on.
 */
final class WrkRun {

    private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([0-9.]+)");
    private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses:\\s+(\\d+)");
    private static final Pattern ERRORS = Pattern.compile("Socket errors:.*?(\\d+).*?(\\d+).*?(\\d+).*?(\\d+)");

    private WrkRun() {
    }

    static LoadRun.Result run(int port, String authorization, int concurrency, String cpus, Duration warmup,
            Duration measure, Path work) throws IOException, InterruptedException {
        Path script = work.resolve("token.lua");
        Files.writeString(script, String.join("\n",
                "wrk.method = \"POST\"",
                "wrk.body = '{\"grant_type\":\"client_credentials\"}'",
                "wrk.headers[\"Content-Type\"] = \"application/json\"",
                "wrk.headers[\"Authorization\"] = \"" + authorization + "\"", ""), StandardCharsets.UTF_8);
        String url = "http://127.0.0.1:" + port + "/users/v2/oauth/token";
        wrk(cpus, concurrency, warmup, script, url);
        String out = wrk(cpus, concurrency, measure, script, url);
        long notOk = find(NON_2XX, out).map(Long::parseLong).orElse(0L);
        Matcher errors = ERRORS.matcher(out);
        if (errors.find()) {
            for (int i = 1; i <= 4; i++) {
                notOk += Long.parseLong(errors.group(i));
            }
        }
        double rate = Double.parseDouble(find(RATE, out).orElseThrow(() -> new IOException("wrk said:\n" + out)));
        return new LoadRun.Result(concurrency, rate, (long) (rate * measure.toSeconds()), notOk,
                percentile(out, "50"), percentile(out, "99"), -1);
    }

    private static String wrk(String cpus, int concurrency, Duration duration, Path script, String url)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (cpus != null) {
            command.addAll(List.of("taskset", "-c", cpus));
        }
        command.addAll(List.of("wrk", "-t1", "-c" + concurrency, "-d" + duration.toSeconds() + "s", "--latency",
                "--timeout", "10s", "-s", script.toString(), url));
        Process wrk = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(wrk.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!wrk.waitFor(duration.toSeconds() + 30, TimeUnit.SECONDS) || wrk.exitValue() != 0) {
            wrk.destroyForcibly();
            throw new IOException("wrk failed:\n" + out);
        }
        return out;
    }

    /** A latency percentile line of {@code --latency} ("99%    2.31ms") in microseconds. */
    private static long percentile(String out, String percent) throws IOException {
        Matcher m = Pattern.compile("\\s" + percent + "%\\s+([0-9.]+)(us|ms|s)").matcher(out);
        if (!m.find()) {
            throw new IOException("no " + percent + "% line in wrk's output:\n" + out);
        }
        double value = Double.parseDouble(m.group(1));
        return Math.round(switch (m.group(2)) {
            case "us" -> value;
            case "ms" -> value * 1_000;
            default -> value * 1_000_000;
        });
    }

    private static java.util.Optional<String> find(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        return m.find() ? java.util.Optional.of(m.group(1)) : java.util.Optional.empty();
    }
}
