package io.outpost.deploy;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** What a service's own sources say about it: its port, its configuration interfaces. */
record ServiceConfig(String name, Properties properties, String configSources) {

    static ServiceConfig of(String service) throws IOException {
        Path module = Rendered.ROOT.resolve(service);
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(module.resolve("src/main/resources/application.properties"))) {
            properties.load(reader);
        }
        List<Path> sources = new ArrayList<>();
        try (Stream<Path> files = Files.walk(module.resolve("src/main/java"))) {
            files.filter(p -> p.toString().endsWith("Config.java")).forEach(sources::add);
        }
        sources.add(Rendered.ROOT.resolve(
                "service-support/src/main/java/io/outpost/support/security/SecurityConfig.java"));
        StringBuilder text = new StringBuilder();
        for (Path source : sources) {
            text.append(Files.readString(source));
        }
        return new ServiceConfig(service, properties, text.toString());
    }

    /** The largest request body the service takes: its own limit, else the one every service shares. */
    long maxBodyBytes() throws IOException {
        String key = "quarkus.http.limits.max-body-size";
        if (properties.containsKey(key)) {
            return bytes(properties.getProperty(key));
        }
        Properties shared = new Properties();
        try (Reader reader = Files.newBufferedReader(Rendered.ROOT.resolve(
                "service-support/src/main/resources/META-INF/microprofile-config.properties"))) {
            shared.load(reader);
        }
        return bytes(shared.getProperty(key));
    }

    /** A size as Quarkus ({@code 64K}) or nginx ({@code 64k}) writes it: a number and a power of 1024. */
    static long bytes(String size) {
        Matcher parts = Pattern.compile("(\\d+)([kKmMgG]?)").matcher(size);
        if (!parts.matches()) {
            throw new AssertionError("not a size: '" + size + "'");
        }
        int power = "kmg".indexOf(parts.group(2).toLowerCase()) + 1;
        return Long.parseLong(parts.group(1)) << (10 * power);
    }

    int port() {
        return Integer.parseInt(properties.getProperty("quarkus.http.port"));
    }

    /** Every service reads Kafka: auth-service publishes revocations and audit events, every verifier reads them. */
    boolean consumesKafka() {
        return true;
    }

    /**
     * True when an {@code OUTPOST_…} environment variable names a setting some {@code @ConfigMapping} of this
     * service declares: after the prefix, its words must split into accessor names that the sources declare
     * ({@code OUTPOST_AUTH_KEYS_DIR} → {@code keys()} and {@code dir()}).
     */
    boolean declares(String envName) {
        String[] words = envName.toLowerCase().split("_");
        if (words.length < 3 || !words[0].equals("outpost")) {
            return false;
        }
        return splits(words, 2);
    }

    private boolean splits(String[] words, int from) {
        if (from == words.length) {
            return true;
        }
        StringBuilder accessor = new StringBuilder(words[from]);
        for (int end = from + 1; end <= words.length; end++) {
            if (configSources.contains(" " + accessor + "()") && splits(words, end)) {
                return true;
            }
            if (end < words.length) {
                accessor.append(Character.toUpperCase(words[end].charAt(0))).append(words[end].substring(1));
            }
        }
        return false;
    }
}
