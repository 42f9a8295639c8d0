package io.outpost.deploy;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * CloudNativePG publishes no Java model of its resources (nothing on Maven Central), so its objects are checked
 * against this allow-list: the fields of its {@code postgresql.cnpg.io/v1} API reference that Outpost may use, each
 * with its shape. A field outside it, or of another shape (an object where a list belongs), fails; so does a missing
 * required one. Widen it, from the API reference, when the manifests need a field it lacks.
 */
final class CnpgFields {

    /** A leaf of any scalar value. */
    private static final String SCALAR = "scalar";
    /** A free-form map (labels, PostgreSQL parameters). */
    private static final String ANY_MAP = "map";

    private static final Map<String, Object> SECRET_KEY = Map.of("name", SCALAR, "key", SCALAR);
    private static final Map<String, Object> METADATA = Map.of("name", SCALAR, "namespace", SCALAR, "labels", ANY_MAP,
            "annotations", ANY_MAP);
    private static final Map<String, Object> RESOURCES = Map.of(
            "requests", Map.of("cpu", SCALAR, "memory", SCALAR), "limits", Map.of("cpu", SCALAR, "memory", SCALAR));
    private static final Map<String, Object> STORAGE = Map.of("size", SCALAR, "storageClass", SCALAR,
            "resizeInUseVolumes", SCALAR);

    private static final Map<String, Object> CLUSTER = Map.of("apiVersion", SCALAR, "kind", SCALAR, "metadata", METADATA,
            "spec", Map.ofEntries(
                    Map.entry("instances", SCALAR),
                    Map.entry("imageName", SCALAR),
                    Map.entry("primaryUpdateStrategy", SCALAR),
                    Map.entry("enableSuperuserAccess", SCALAR),
                    Map.entry("bootstrap", Map.of("initdb", Map.of("database", SCALAR, "owner", SCALAR,
                            "secret", Map.of("name", SCALAR), "encoding", SCALAR, "localeCollate", SCALAR,
                            "localeCType", SCALAR, "postInitApplicationSQL", List.of(SCALAR),
                            "postInitApplicationSQLRefs", Map.of("configMapRefs", List.of(SECRET_KEY),
                                    "secretRefs", List.of(SECRET_KEY))))),
                    Map.entry("managed", Map.of("roles", List.of(Map.of("name", SCALAR, "ensure", SCALAR,
                            "login", SCALAR, "comment", SCALAR, "connectionLimit", SCALAR, "inRoles", List.of(SCALAR),
                            "passwordSecret", Map.of("name", SCALAR))))),
                    Map.entry("postgresql", Map.of("parameters", ANY_MAP, "pg_hba", List.of(SCALAR))),
                    Map.entry("storage", STORAGE),
                    Map.entry("walStorage", STORAGE),
                    Map.entry("resources", RESOURCES),
                    Map.entry("backup", Map.of("retentionPolicy", SCALAR, "target", SCALAR,
                            "barmanObjectStore", Map.of("destinationPath", SCALAR, "endpointURL", SCALAR,
                                    "serverName", SCALAR,
                                    "s3Credentials", Map.of("accessKeyId", SECRET_KEY, "secretAccessKey", SECRET_KEY,
                                            "region", SECRET_KEY, "sessionToken", SECRET_KEY,
                                            "inheritFromIAMRole", SCALAR),
                                    "wal", Map.of("compression", SCALAR, "maxParallel", SCALAR, "encryption", SCALAR),
                                    "data", Map.of("compression", SCALAR, "jobs", SCALAR, "encryption", SCALAR))))));

    private static final Map<String, Object> SCHEDULED_BACKUP = Map.of("apiVersion", SCALAR, "kind", SCALAR,
            "metadata", METADATA, "spec", Map.of("schedule", SCALAR, "cluster", Map.of("name", SCALAR),
                    "backupOwnerReference", SCALAR, "immediate", SCALAR, "suspend", SCALAR, "method", SCALAR,
                    "target", SCALAR));

    static final Map<String, Map<String, Object>> KINDS = Map.of("postgresql.cnpg.io/v1/Cluster", CLUSTER,
            "postgresql.cnpg.io/v1/ScheduledBackup", SCHEDULED_BACKUP);

    /** Fields that must be there, by kind. */
    private static final Map<Map<String, Object>, List<String>> REQUIRED = Map.of(
            CLUSTER, List.of("spec.instances", "spec.storage.size"),
            SCHEDULED_BACKUP, List.of("spec.schedule", "spec.cluster.name"));

    private CnpgFields() {
    }

    static List<String> faults(String name, JsonNode object, Map<String, Object> allowed) {
        List<String> faults = new ArrayList<>();
        check(name, object, allowed, faults);
        for (String required : REQUIRED.getOrDefault(allowed, List.of())) {
            JsonNode at = object;
            for (String step : required.split("\\.")) {
                at = at.path(step);
            }
            if (at.isMissingNode() || at.isNull()) {
                faults.add(name + ": " + required + " is required");
            }
        }
        return faults;
    }

    private static void check(String path, JsonNode value, Object allowed, List<String> faults) {
        if (allowed.equals(SCALAR)) {
            if (!value.isValueNode()) {
                faults.add(path + ": must be a single value");
            }
        } else if (allowed.equals(ANY_MAP)) {
            if (!value.isObject()) {
                faults.add(path + ": must be a map");
            }
        } else if (allowed instanceof List<?> items) {
            if (!value.isArray()) {
                faults.add(path + ": must be a list");
                return;
            }
            for (int i = 0; i < value.size(); i++) {
                check(path + "[" + i + "]", value.get(i), items.get(0), faults);
            }
        } else if (allowed instanceof Map<?, ?> fields) {
            if (!value.isObject()) {
                faults.add(path + ": must be an object");
                return;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> field = it.next();
                Object inner = fields.get(field.getKey());
                if (inner == null) {
                    faults.add(path + "." + field.getKey() + ": not a field of the CloudNativePG API (or not allowed)");
                } else {
                    check(path + "." + field.getKey(), field.getValue(), inner, faults);
                }
            }
        }
    }
}
