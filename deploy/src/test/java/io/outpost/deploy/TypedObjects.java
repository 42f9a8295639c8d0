package io.outpost.deploy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.openshift.api.model.monitoring.v1.PodMonitor;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.strimzi.api.kafka.model.nodepool.KafkaNodePool;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.user.KafkaUser;

/**
 * Rendered objects parsed into their typed models — fabric8's for Kubernetes and the Prometheus operator, Strimzi's own
 * for Strimzi — for the tests that read them as the operator would, and as a second strict check
 * beside {@link ApiSchemas}: a field the model does not know is an error (the models keep unknown fields aside, in
 * {@code additionalProperties}; any found there fails). Kinds with no Java model on Maven Central (CloudNativePG's,
 * the Barman Cloud plugin's, the Gateway API's) are checked by {@link ApiSchemas} alone.
 */
final class TypedObjects {

    static final Map<String, Class<?>> MODELS = Map.ofEntries(
            Map.entry("apps/v1/Deployment", Deployment.class),
            Map.entry("v1/Service", Service.class),
            Map.entry("v1/ConfigMap", ConfigMap.class),
            Map.entry("v1/Secret", Secret.class),
            Map.entry("policy/v1/PodDisruptionBudget", PodDisruptionBudget.class),
            Map.entry("autoscaling/v2/HorizontalPodAutoscaler", HorizontalPodAutoscaler.class),
            Map.entry("batch/v1/Job", Job.class),
            Map.entry("networking.k8s.io/v1/Ingress", Ingress.class),
            Map.entry("networking.k8s.io/v1/NetworkPolicy", NetworkPolicy.class),
            Map.entry("monitoring.coreos.com/v1/ServiceMonitor", ServiceMonitor.class),
            Map.entry("monitoring.coreos.com/v1/PrometheusRule", PrometheusRule.class),
            Map.entry("v1/Namespace", Namespace.class),
            Map.entry("v1/ServiceAccount", ServiceAccount.class),
            Map.entry("monitoring.coreos.com/v1/PodMonitor", PodMonitor.class),
            Map.entry("kafka.strimzi.io/v1/Kafka", Kafka.class),
            Map.entry("kafka.strimzi.io/v1/KafkaNodePool", KafkaNodePool.class),
            Map.entry("kafka.strimzi.io/v1/KafkaTopic", KafkaTopic.class),
            Map.entry("kafka.strimzi.io/v1/KafkaUser", KafkaUser.class));

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS);

    private TypedObjects() {
    }

    /** {@code object} in its typed model, for tests that read it as the operator would (see {@link #faults}). */
    static <T> T parse(JsonNode object, Class<T> model) {
        try {
            return MAPPER.treeToValue(object, model);
        } catch (Exception e) {
            throw new AssertionError(object.path("kind").asText() + " " + object.path("metadata").path("name").asText()
                    + " does not parse into " + model.getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    /** Parses {@code object} into its model and returns the faults (unknown fields); none for a kind with no model. */
    static List<String> faults(JsonNode object) {
        String type = object.path("apiVersion").asText() + "/" + object.path("kind").asText();
        String name = type + " " + object.path("metadata").path("name").asText();
        Class<?> model = MODELS.get(type);
        if (model == null) {
            return List.of();
        }
        List<String> faults = new ArrayList<>();
        try {
            collectUnknown(MAPPER.treeToValue(object, model), name, faults);
        } catch (Exception e) {
            faults.add(name + ": " + e.getMessage());
        }
        return faults;
    }

    /** Walks the typed object; whatever landed in an {@code additionalProperties} is a field the model lacks. */
    private static void collectUnknown(Object value, String path, List<String> faults) throws ReflectiveOperationException {
        if (value instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                collectUnknown(item, path + "[" + i++ + "]", faults);
            }
            return;
        }
        if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                collectUnknown(entry.getValue(), path + "." + entry.getKey(), faults);
            }
            return;
        }
        if (value == null || !isModel(value.getClass())) {
            return;
        }
        for (Method getter : value.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers())
                    || getter.getDeclaringClass() == Object.class || !isGetter(getter.getName())) {
                continue;
            }
            Object child;
            try {
                child = getter.invoke(value);
            } catch (InvocationTargetException e) {
                continue; // a derived getter that needs state this object lacks: not a field
            }
            if (getter.getName().equals("getAdditionalProperties")) {
                if (child instanceof Map<?, ?> unknown && !unknown.isEmpty()) {
                    faults.add(path + ": unknown field(s) " + unknown.keySet());
                }
            } else {
                collectUnknown(child, path + "." + fieldName(getter.getName()), faults);
            }
        }
    }

    private static boolean isModel(Class<?> type) {
        String name = type.getName();
        return !type.isEnum() && (name.startsWith("io.fabric8.kubernetes.api.model")
                || name.startsWith("io.fabric8.openshift.api.model") || name.startsWith("io.strimzi.api"));
    }

    private static boolean isGetter(String name) {
        return name.startsWith("get") && name.length() > 3 || name.startsWith("is") && name.length() > 2;
    }

    private static String fieldName(String getter) {
        String bare = getter.startsWith("get") ? getter.substring(3) : getter.substring(2);
        return Character.toLowerCase(bare.charAt(0)) + bare.substring(1);
    }
}
