package io.outpost.support.json;

import java.io.IOException;
import java.time.temporal.Temporal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.outpost.model.error.ErrorDetail;

/**
 * Reads a JSON document as a typed value and, when values in it have the wrong JSON type, names every one of them
 * (DESIGN §5: one entry per faulty input), where Jackson stops at the first. A document that reads is read once,
 * straight from its bytes; only a failed one is read again as a tree and walked along the type's structure
 * (record and bean properties, list elements, map values): each subtree that does not read on its own is either
 * walked further or, at a value, becomes one {@link JsonFaults#locate located} fault and is left out. What remains
 * is read as the value, so the caller's own checks can still report the other fields; {@link #withChecks} then
 * drops the checks' complaints about the values already reported (a left-out required field is not "missing").
 * The walk reads each subtree at most once per level of the type, so its cost is linear in the document, and it
 * stops at {@link #MAX_FAULTS} faults.
 */
public final class JsonBinding {

    /** The value read (null when none could be: empty, {@code null} or unreadable) and the faults found in it. */
    public record Read<T>(T value, List<ErrorDetail> faults) {
    }

    /**
     * The most faults a walk names: past them it stops, and the document is refused with those alone (each costs
     * a failed read, and a 1 MiB body could hold a hundred thousand).
     */
    public static final int MAX_FAULTS = 1_000;

    private static final Map<JavaType, Map<String, JavaType>> PROPERTIES = new ConcurrentHashMap<>();

    private JsonBinding() {
    }

    /**
     * Reads {@code json} as {@code type}; faults are located under {@code base}. No bytes (or none at all) is no
     * value and no fault, as JSON {@code null} is: the caller says what is missing. Every key of the document is
     * checked as it is read, those the type ignores included: one holding U+0000 or an unpaired surrogate is a
     * fault, and the rest of the document is still read. Bytes that are not UTF-8 JSON text ({@link Utf8}: not
     * well-formed UTF-8, or holding a 0x00 byte, as UTF-16 and UTF-32 do, which Jackson would otherwise detect and
     * read) are one fault, {@link ErrorDetail#invalidUtf8}, and nothing is read. A UTF-8 byte order mark
     * ({@code EF BB BF}) opening the document is ignored, as Jackson does (RFC 8259 §8.1 lets a parser ignore it):
     * it says nothing but "UTF-8", and the document reads the same without it.
     */
    public static <T> Read<T> read(ObjectMapper mapper, byte[] json, Class<T> type, List<Object> base) {
        if (json == null || json.length == 0) {
            return new Read<>(null, List.of());
        }
        if (!Utf8.wellFormedWithoutNul(json)) {
            return new Read<>(null, List.of(ErrorDetail.invalidUtf8(base)));
        }
        try (KeyCheckingParser parser = new KeyCheckingParser(mapper.createParser(json), base)) {
            T value = mapper.readValue(parser, type);
            return new Read<>(value, List.copyOf(parser.faults()));
        } catch (JsonProcessingException e) {
            if (!(e instanceof JsonMappingException mapping) || mapping.getPath().isEmpty()) {
                return new Read<>(null, List.of(rootFault(mapper, json, type, base, e)));
            }
            return readFieldByField(mapper, json, mapper.constructType(type), base, e);
        } catch (IOException | RuntimeException e) {
            // also what Jackson throws past its own limits (nesting depth, number and string lengths)
            return new Read<>(null, List.of(ErrorDetail.jsonInvalid(base, "JSON decode error")));
        }
    }

    /**
     * The fault of a document that did not read as {@code type} at its root ({@code failure}). For an object of named
     * fields the document is read again as a tree, and what that read meets is the fault: one well-formed JSON value
     * of another kind ({@code [1,2]}, {@code "text"}, {@code 5}) is its JSON type, as for a field; nesting past the
     * parser's limits, a key given twice or text that is not JSON is said so — Jackson refuses an array for a record
     * at its first token, before it meets any of them. Only on the failure path.
     */
    private static ErrorDetail rootFault(ObjectMapper mapper, byte[] json, Class<?> type, List<Object> base,
            JsonProcessingException failure) {
        if (!JsonFaults.isObject(type)) {
            return JsonFaults.locate(failure, base);
        }
        try (KeyCheckingParser parser = new KeyCheckingParser(mapper.createParser(json), base)) {
            JsonNode root = mapper.readTree(parser);
            boolean otherKind = root != null && !root.isObject() && !root.isNull() && !root.isMissingNode();
            return otherKind ? JsonFaults.notAnObject(base) : JsonFaults.locate(failure, base);
        } catch (JsonProcessingException tree) {
            return JsonFaults.locate(tree, base);
        } catch (IOException | RuntimeException e) {
            return JsonFaults.locate(failure, base);
        }
    }

    /**
     * The faults of a read together with the caller's checks of the value read: checks at or under a location
     * already reported are dropped, and the rest are ordered by the list indices in their location (entry 0's
     * faults before entry 1's), read faults first among equals.
     */
    public static List<ErrorDetail> withChecks(List<ErrorDetail> readFaults, List<ErrorDetail> checks) {
        List<ErrorDetail> all = new ArrayList<>(readFaults);
        for (ErrorDetail check : checks) {
            if (readFaults.stream().noneMatch(fault -> startsWith(check.loc(), fault.loc()))) {
                all.add(check);
            }
        }
        all.sort(Comparator.comparing(fault -> indices(fault.loc()), JsonBinding::compareIndices));
        return all;
    }

    private static <T> Read<T> readFieldByField(ObjectMapper mapper, byte[] json, JavaType type, List<Object> base,
            JsonProcessingException first) {
        JsonNode tree;
        List<ErrorDetail> faults = new ArrayList<>();
        try (KeyCheckingParser parser = new KeyCheckingParser(mapper.createParser(json), base)) {
            tree = mapper.readTree(parser);
            faults.addAll(parser.faults());
        } catch (JsonProcessingException e) {
            return new Read<>(null, List.of(JsonFaults.locate(e, base)));
        } catch (IOException | RuntimeException e) {
            return new Read<>(null, List.of(ErrorDetail.jsonInvalid(base, "JSON decode error")));
        }
        int keyFaults = faults.size();
        T value = null;
        try {
            JsonNode kept = prune(mapper, tree, type, base, faults, true);
            if (kept != null && faults.size() < MAX_FAULTS) {
                value = mapper.readerFor(type).readValue(kept);
            }
        } catch (IOException | RuntimeException e) {
            value = null;
        }
        if (faults.size() == keyFaults) {
            // the tree read differently from the bytes: report what the bytes said
            return new Read<>(null, List.of(JsonFaults.locate(first, base)));
        }
        return new Read<>(value, List.copyOf(faults));
    }

    /**
     * {@code node} with every value that does not read as its part of {@code type} left out (a list's entry
     * becomes null); null when {@code node} itself is the faulty value. {@code failed}: the caller has just seen
     * {@code node} fail to read, so it is walked without reading it whole once more (each such read costs as much
     * as the subtree: skipping them keeps a faulty document's walk to about two reads of it).
     */
    private static JsonNode prune(ObjectMapper mapper, JsonNode node, JavaType type, List<Object> loc,
            List<ErrorDetail> faults, boolean failed) throws IOException {
        if (!failed && reads(mapper, node, type) == null) {
            return node;
        }
        int before = faults.size();
        if (node instanceof ObjectNode object && type.isMapLikeType()) {
            for (Iterator<Map.Entry<String, JsonNode>> fields = object.properties().iterator();
                    fields.hasNext() && faults.size() < MAX_FAULTS;) {
                Map.Entry<String, JsonNode> field = fields.next();
                if (prune(mapper, field.getValue(), type.getContentType(), ErrorDetail.loc(loc, field.getKey()),
                        faults, false) == null) {
                    fields.remove();
                }
            }
        } else if (node instanceof ObjectNode object && !type.isContainerType()) {
            pruneProperties(mapper, object, type, loc, faults);
        } else if (node instanceof ArrayNode array && type.isCollectionLikeType()) {
            for (int i = 0; i < array.size() && faults.size() < MAX_FAULTS; i++) {
                if (prune(mapper, array.get(i), type.getContentType(), ErrorDetail.loc(loc, i), faults, false) == null) {
                    array.set(i, NullNode.getInstance());
                }
            }
        }
        if (faults.size() > before) {
            return node;
        }
        // nothing inside it is at fault: the node itself is the faulty value
        JsonProcessingException failure = reads(mapper, node, type);
        if (failure == null) {
            return node;
        }
        faults.add(JsonFaults.locateValue(failure, loc));
        return null;
    }

    /** Null when {@code node} reads as {@code type}; else why it does not. */
    private static JsonProcessingException reads(ObjectMapper mapper, JsonNode node, JavaType type) throws IOException {
        try {
            mapper.readerFor(type).readValue(node);
            return null;
        } catch (JsonProcessingException e) {
            return e;
        }
    }

    /**
     * Reads each property of a record or bean on its own, as an object of {@code type} holding only it, so that
     * the property's own annotations (a custom deserializer, a format) apply; a property whose value is a
     * structure of the right kind that still does not read is walked further.
     */
    private static void pruneProperties(ObjectMapper mapper, ObjectNode object, JavaType type, List<Object> loc,
            List<ErrorDetail> faults) throws IOException {
        Map<String, JavaType> properties = properties(mapper, type);
        for (Iterator<Map.Entry<String, JsonNode>> fields = object.properties().iterator();
                fields.hasNext() && faults.size() < MAX_FAULTS;) {
            Map.Entry<String, JsonNode> field = fields.next();
            JavaType fieldType = properties.get(field.getKey());
            if (fieldType == null) {
                continue;
            }
            ObjectNode alone = mapper.createObjectNode().set(field.getKey(), field.getValue());
            try {
                mapper.readerFor(type).readValue(alone);
                continue;
            } catch (JsonProcessingException e) {
                JsonNode value = field.getValue();
                boolean structure = value.isObject() && (fieldType.isMapLikeType() || !fieldType.isContainerType())
                        || value.isArray() && fieldType.isCollectionLikeType();
                if (!structure || isScalar(fieldType)) {
                    faults.add(JsonFaults.locate(e, loc));
                    fields.remove();
                } else if (prune(mapper, value, fieldType, ErrorDetail.loc(loc, field.getKey()), faults, true) == null) {
                    fields.remove();
                }
            }
        }
    }

    /** A type read from one JSON scalar (text, number, boolean), not walked into. */
    private static boolean isScalar(JavaType type) {
        Class<?> raw = type.getRawClass();
        return raw.isPrimitive() || raw.isEnum() || CharSequence.class.isAssignableFrom(raw)
                || Number.class.isAssignableFrom(raw) || raw == Boolean.class
                || Temporal.class.isAssignableFrom(raw) || raw == UUID.class;
    }

    /** The JSON names of a record's or bean's properties with their types (unknown names are ignored). */
    private static Map<String, JavaType> properties(ObjectMapper mapper, JavaType type) {
        return PROPERTIES.computeIfAbsent(type, t -> {
            BeanDescription description = mapper.getDeserializationConfig().introspect(t);
            Map<String, JavaType> properties = new LinkedHashMap<>();
            for (BeanPropertyDefinition property : description.findProperties()) {
                properties.put(property.getName(), property.getPrimaryType());
            }
            return Map.copyOf(properties);
        });
    }

    private static boolean startsWith(List<Object> loc, List<Object> prefix) {
        return loc.size() >= prefix.size() && loc.subList(0, prefix.size()).equals(prefix);
    }

    private static List<Integer> indices(List<Object> loc) {
        List<Integer> indices = new ArrayList<>();
        for (Object part : loc) {
            if (part instanceof Integer index) {
                indices.add(index);
            }
        }
        return indices;
    }

    private static int compareIndices(List<Integer> a, List<Integer> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = Integer.compare(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }
}
