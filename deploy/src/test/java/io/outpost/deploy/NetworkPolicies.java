package io.outpost.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The rendered NetworkPolicies read as the cluster applies them to one pod: every policy whose podSelector selects its
 * labels adds its rules. Each admitted peer and port reads {@code <namespace>/<pod selector>:<port>/<protocol>}
 * ({@code <pod selector>:…} for the pod's own namespace, {@code *} for any).
 */
final class NetworkPolicies {

    private NetworkPolicies() {
    }

    /** Whom the pod (an object with metadata.labels: a pod template) may send to. */
    static Set<String> egress(Rendered rendered, JsonNode pod) {
        return admitted(rendered, pod, "Egress", "egress", "to");
    }

    /** Who may reach the pod. */
    static Set<String> ingress(Rendered rendered, JsonNode pod) {
        return admitted(rendered, pod, "Ingress", "ingress", "from");
    }

    /** Whether some policy of that type selects the pod (so that what none admits is denied). */
    static boolean deniesByDefault(Rendered rendered, JsonNode pod, String type) {
        return !selecting(rendered, pod, type).isEmpty();
    }

    private static List<JsonNode> selecting(Rendered rendered, JsonNode pod, String type) {
        List<JsonNode> policies = new ArrayList<>();
        for (JsonNode policy : rendered.ofKind("NetworkPolicy")) {
            JsonNode spec = policy.path("spec");
            if (Rendered.list(spec.path("policyTypes")).stream().anyMatch(t -> t.asText().equals(type))
                    && selects(spec.path("podSelector"), pod.path("metadata").path("labels"))) {
                policies.add(spec);
            }
        }
        return policies;
    }

    private static Set<String> admitted(Rendered rendered, JsonNode pod, String type, String rules, String peers) {
        Set<String> admitted = new TreeSet<>();
        for (JsonNode spec : selecting(rendered, pod, type)) {
            for (JsonNode rule : spec.path(rules)) {
                List<String> from = new ArrayList<>();
                for (JsonNode peer : rule.path(peers)) {
                    from.add(describe(peer));
                }
                if (from.isEmpty()) {
                    from.add("*");
                }
                for (String peer : from) {
                    for (JsonNode port : rule.path("ports")) {
                        admitted.add(peer + ":" + port.path("port").asText() + "/" + port.path("protocol").asText("TCP"));
                    }
                    if (rule.path("ports").isEmpty()) {
                        admitted.add(peer + ":*");
                    }
                }
            }
        }
        return admitted;
    }

    private static String describe(JsonNode peer) {
        String pods = peer.has("podSelector") ? selector(peer.path("podSelector")) : "*";
        if (!peer.has("namespaceSelector")) {
            return pods;
        }
        JsonNode namespace = peer.path("namespaceSelector");
        String name = namespace.path("matchLabels").size() == 1 && !namespace.has("matchExpressions")
                ? namespace.path("matchLabels").path("kubernetes.io/metadata.name").asText(null) : null;
        return (name != null ? name : "{" + selector(namespace) + "}") + "/" + pods;
    }

    private static String selector(JsonNode selector) {
        Set<String> terms = new TreeSet<>();
        selector.path("matchLabels").fields().forEachRemaining(l -> terms.add(l.getKey() + "=" + l.getValue().asText()));
        for (JsonNode expression : selector.path("matchExpressions")) {
            terms.add(expression.path("key").asText() + " " + expression.path("operator").asText().toLowerCase() + " "
                    + Rendered.list(expression.path("values")).stream().map(JsonNode::asText).toList());
        }
        return terms.isEmpty() ? "*" : String.join(",", terms);
    }

    static boolean selects(JsonNode selector, JsonNode labels) {
        var matchLabels = selector.path("matchLabels").fields();
        while (matchLabels.hasNext()) {
            var label = matchLabels.next();
            if (!label.getValue().asText().equals(labels.path(label.getKey()).asText(null))) {
                return false;
            }
        }
        for (JsonNode expression : selector.path("matchExpressions")) {
            String value = labels.path(expression.path("key").asText()).asText(null);
            Set<String> values = new TreeSet<>(Rendered.list(expression.path("values")).stream().map(JsonNode::asText)
                    .toList());
            boolean matches = switch (expression.path("operator").asText()) {
                case "In" -> value != null && values.contains(value);
                case "NotIn" -> value == null || !values.contains(value);
                case "Exists" -> value != null;
                case "DoesNotExist" -> value == null;
                default -> throw new AssertionError("operator " + expression.path("operator").asText());
            };
            if (!matches) {
                return false;
            }
        }
        return true;
    }
}
