package io.outpost.deploy;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/** An overlay rendered by {@code kubectl kustomize}, as the list of objects it produces. */
record Rendered(String overlay, List<JsonNode> objects) {

    static final Path DEPLOY = Path.of("").toAbsolutePath();
    static final Path ROOT = DEPLOY.getParent();

    static Rendered overlay(String name) throws IOException, InterruptedException {
        return kustomization("overlays/" + name);
    }

    /**
     * Any kustomization below deploy/, e.g. {@code ops/dead-letters}, which no overlay includes; {@code
     * overlays/prod+gateway-api} is the prod overlay with its edge component swapped for {@code
     * components/gateway-api}, as docs/deploy.md ("Choosing the edge") says to.
     */
    static Rendered kustomization(String dir) throws IOException, InterruptedException {
        if (dir.contains("+")) {
            return withEdge(dir.substring(0, dir.indexOf('+')), dir.substring(dir.indexOf('+') + 1));
        }
        return render(DEPLOY, dir);
    }

    /** An overlay rendered with another edge component, from a copy of deploy/ whose overlay names that one. */
    static Rendered withEdge(String overlay, String edge) throws IOException, InterruptedException {
        Path copy = Files.createTempDirectory("outpost-deploy");
        try {
            for (String dir : List.of("base", "components", "overlays")) {
                copyTree(DEPLOY.resolve(dir), copy.resolve(dir));
            }
            Path kustomization = copy.resolve(overlay).resolve("kustomization.yaml");
            String text = Files.readString(kustomization);
            String swapped = text.replace("../../components/" + DEFAULT_EDGE, "../../components/" + edge);
            if (swapped.equals(text)) {
                throw new AssertionError(overlay + " does not name the component " + DEFAULT_EDGE);
            }
            Files.writeString(kustomization, swapped);
            Rendered rendered = render(copy, overlay);
            return new Rendered(rendered.overlay() + "+" + edge, rendered.objects());
        } finally {
            try (Stream<Path> files = Files.walk(copy)) {
                for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
    }

    /** The edge component the overlays name. */
    static final String DEFAULT_EDGE = "ingress-nginx";

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Files.copy(file, to.resolve(from.relativize(file).toString()));
            }
        }
    }

    private static Rendered render(Path deploy, String dir) throws IOException, InterruptedException {
        String name = dir.replaceFirst("^overlays/", "");
        Process kubectl;
        try {
            kubectl = new ProcessBuilder("kubectl", "kustomize", deploy.resolve(dir).toString())
                    .redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("kubectl (with its built-in Kustomize) is needed to render deploy/overlays", e);
        }
        String output = new String(kubectl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!kubectl.waitFor(60, TimeUnit.SECONDS) || kubectl.exitValue() != 0) {
            throw new IllegalStateException("kubectl kustomize " + dir + " failed:\n" + output);
        }
        List<JsonNode> objects = new ArrayList<>();
        try (MappingIterator<JsonNode> docs = new YAMLMapper().readerFor(JsonNode.class)
                .readValues(new StringReader(output))) {
            while (docs.hasNext()) {
                JsonNode doc = docs.next();
                if (doc != null && !doc.isEmpty()) {
                    objects.add(doc);
                }
            }
        }
        return new Rendered(name, objects);
    }

    List<JsonNode> ofKind(String kind) {
        return objects.stream().filter(o -> kind.equals(o.path("kind").asText())).toList();
    }

    /** The object of that name, else the first whose name is it plus a suffix (a generated ConfigMap's hash). */
    JsonNode named(String kind, String name) {
        List<JsonNode> ofKind = ofKind(kind);
        return ofKind.stream().filter(o -> o.path("metadata").path("name").asText().equals(name)).findFirst()
                .or(() -> ofKind.stream().filter(o -> o.path("metadata").path("name").asText().startsWith(name + "-"))
                        .findFirst())
                .orElseThrow(() -> new AssertionError(overlay + ": no " + kind + " " + name));
    }

    /** A service's settings in the base ({@code deploy/base/<service>/config.env}). */
    static Properties configEnv(String service) throws IOException {
        Properties config = new Properties();
        try (Reader reader = Files.newBufferedReader(DEPLOY.resolve("base").resolve(service).resolve("config.env"))) {
            config.load(reader);
        }
        return config;
    }

    /** An object in its typed model (fabric8's, Strimzi's), parsed as strictly as {@link TypedObjects} does. */
    <T> T typed(String kind, String name, Class<T> model) {
        return TypedObjects.parse(named(kind, name), model);
    }

    static List<JsonNode> list(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).toList();
    }

    /** A Kubernetes memory quantity in bytes; only the binary suffixes ({@code 768Mi}, {@code 1Gi}) are used here. */
    static long quantityBytes(String quantity) {
        java.util.regex.Matcher parts = java.util.regex.Pattern.compile("(\\d+)(Ki|Mi|Gi)").matcher(quantity);
        if (!parts.matches()) {
            throw new AssertionError("not a binary memory quantity: '" + quantity + "'");
        }
        return Long.parseLong(parts.group(1)) << (10 * (1 + List.of("Ki", "Mi", "Gi").indexOf(parts.group(2))));
    }

    /** The pod spec of a Deployment. */
    JsonNode podSpec(String deployment) {
        return named("Deployment", deployment).path("spec").path("template").path("spec");
    }

    /** The first (the service's) container of a Deployment. */
    JsonNode container(String deployment) {
        return podSpec(deployment).path("containers").get(0);
    }

    /** An init container of a Deployment, by name. */
    JsonNode initContainer(String deployment, String name) {
        return list(podSpec(deployment).path("initContainers")).stream()
                .filter(c -> c.path("name").asText().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(overlay + ": " + deployment + " has no init container " + name));
    }

    static List<String> envNames(JsonNode container) {
        return list(container.path("env")).stream().map(e -> e.path("name").asText()).toList();
    }

    /** An environment variable's entry; fails when the container lacks it. */
    static JsonNode envEntry(JsonNode container, String name) {
        return list(container.path("env")).stream().filter(e -> e.path("name").asText().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no env " + name + " in " + container.path("name").asText()));
    }

    /** A literal environment value. */
    static String env(JsonNode container, String name) {
        return envEntry(container, name).path("value").asText();
    }

    /** The Secret an environment variable is read from. */
    static String secretOf(JsonNode container, String name) {
        return envEntry(container, name).path("valueFrom").path("secretKeyRef").path("name").asText();
    }

    /** The ConfigMap key an environment variable is read from. */
    static String configKeyOf(JsonNode container, String name) {
        return envEntry(container, name).path("valueFrom").path("configMapKeyRef").path("key").asText();
    }
}
