package io.outpost.support.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.outpost.model.error.Constraints;
import io.outpost.model.error.ErrorDetail;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpServerRequest;

/**
 * Parses a request's raw inputs against their limits, collecting every fault before answering. Query values
 * are read from the request itself, not through {@code @RestQuery}: the framework turns {@code ?name=} into
 * null, which would silently drop a filter the client asked for instead of refusing it. Each fault is a 422
 * with the DESIGN §5 {@code loc} and {@code type}, never the framework's 400 or 404. No value that reaches
 * a caller holds U+0000 ({@code string_pattern_mismatch}), so none can break a query.
 *
 * <pre>
 * InputParser in = new InputParser(request);
 * int size = in.queryInt("max_page_size", 10, 1, 100);
 * in.throwIfInvalid();
 * </pre>
 */
public final class InputParser {

    private final List<ErrorDetail> errors = new ArrayList<>();
    private final Map<String, List<String>> query;
    private final MultiMap headers;

    /** For checks of a body alone: no query parameters or headers to read. */
    public InputParser() {
        this(Map.of(), MultiMap.caseInsensitiveMultiMap());
    }

    /**
     * The request's query and headers. A query that does not decode ({@link #query(String)}) is one fault,
     * {@link #queryNotUtf8()}, and no parameter is read from it; {@link RequestUriCheck} refuses such a request
     * before any endpoint runs, so this holds for any other way a request arrives.
     */
    public InputParser(HttpServerRequest request) {
        this(request.uri(), request.headers());
    }

    InputParser(String uri, MultiMap headers) {
        Map<String, List<String>> parameters = query(uri);
        if (parameters == null) {
            errors.add(queryNotUtf8());
            parameters = Map.of();
        }
        this.query = parameters;
        this.headers = headers;
    }

    /**
     * The query parameters of {@code uri} (a request target) by their exact names (spec §4 names them in lower
     * case; {@code PAGE_SIZE} is another, unknown parameter); null when a name or value does not decode. Each is
     * percent-decoded by {@link PercentDecoding}: UTF-8, {@code +} a space, and never U+FFFD in place of bytes
     * that are not UTF-8. Parameters are split as Netty's {@code QueryStringDecoder} split them before: from the
     * first {@code ?} to a {@code #}, only {@code &} separates them — {@code ;} is an ordinary character of a value
     * (RFC 3986 lets it stand unencoded, and a cursor or a name may hold one) —, the first {@code =} ends the name
     * ({@code =} before any other character of it is skipped), a parameter without one has the value {@code ""},
     * and an empty one ({@code a=1&&b=2}) is none. Every parameter is read — the request line's 8 KiB bound them —
     * so none is dropped unseen. Not kept on the request, as {@link HttpServerRequest#params()} would be: a held
     * long poll would carry that map until its answer (≈ 0.5 KiB a poll, docs/benchmarks.md, "Decisions").
     */
    static Map<String, List<String>> query(String uri) {
        int start = uri == null ? -1 : uri.indexOf('?');
        if (start < 0) {
            return Map.of();
        }
        int fragment = uri.indexOf('#');
        if (fragment >= 0 && fragment < start) {
            return Map.of();
        }
        int end = fragment < 0 ? uri.length() : fragment;
        Map<String, List<String>> parameters = new LinkedHashMap<>();
        for (int from = start + 1, to; from < end; from = to + 1) {
            to = uri.indexOf('&', from);
            if (to < 0 || to > end) {
                to = end;
            }
            int name = from;
            while (name < to && uri.charAt(name) == '=') {
                name++;
            }
            if (name == to) {
                continue; // "a=1&&b=2", a trailing "&", "&=&": no parameter
            }
            int eq = uri.indexOf('=', name);
            if (eq < 0 || eq > to) {
                eq = to;
            }
            String decodedName = PercentDecoding.decode(uri, name, eq);
            String value = eq == to ? "" : PercentDecoding.decode(uri, eq + 1, to);
            if (decodedName == null || value == null) {
                return null;
            }
            parameters.computeIfAbsent(decodedName, n -> new ArrayList<>(1)).add(value);
        }
        return parameters;
    }

    /**
     * A query that does not decode: an escape, or a byte sent unescaped, that is not part of well-formed UTF-8
     * ({@code %FF}, {@code %C0%80}, {@code %ED%A0%80}, {@code %E2%82}). A malformed escape ({@code %zz}) is a
     * malformed URI, refused before ({@link RequestUriCheck}: "Invalid query string: Malformed escape pair").
     */
    static ErrorDetail queryNotUtf8() {
        return ErrorDetail.jsonInvalid(ErrorDetail.loc("query"), "Invalid query string: not UTF-8");
    }

    public InputParser(Map<String, List<String>> query, MultiMap headers) {
        this.query = query;
        this.headers = headers;
    }

    /** An optional integer query parameter within {@code min..max}, or {@code fallback} when absent. */
    public int queryInt(String name, int fallback, int min, int max) {
        Long value = Constraints.integer(errors, ErrorDetail.loc("query", name), queryValue(name), min, max);
        return value == null ? fallback : value.intValue();
    }

    /** An optional string query parameter of {@code min..max} characters; null when absent. */
    public String queryString(String name, int min, int max) {
        String raw = queryValue(name);
        Constraints.length(errors, ErrorDetail.loc("query", name), raw, min, max);
        return raw;
    }

    /** An optional query parameter restricted to {@code allowed}, or {@code fallback} when absent. */
    public String queryChoice(String name, List<String> allowed, String fallback) {
        String raw = queryValue(name);
        if (raw == null) {
            return fallback;
        }
        String value = Constraints.oneOf(errors, ErrorDetail.loc("query", name), raw, allowed);
        return value == null ? fallback : value;
    }

    /** An optional uuid query parameter; null when absent or refused. */
    public UUID queryUuid(String name) {
        return Constraints.uuid(errors, ErrorDetail.loc("query", name), queryValue(name));
    }

    /**
     * A uuid list given as repeated parameters and/or comma-separated values; each refused element is located
     * by its index in the flattened list.
     */
    public List<UUID> queryUuids(String name) {
        List<UUID> parsed = new ArrayList<>();
        List<String> items = splitList(query.getOrDefault(name, List.of()));
        for (int i = 0; i < items.size(); i++) {
            List<Object> loc = ErrorDetail.loc("query", name, i);
            UUID value = Constraints.text(errors, loc, items.get(i)) ? Constraints.uuid(errors, loc, items.get(i)) : null;
            if (value != null) {
                parsed.add(value);
            }
        }
        return parsed;
    }

    /** A whole-number list given as repeated parameters and/or comma-separated values. */
    public List<Long> queryLongs(String name) {
        List<Long> parsed = new ArrayList<>();
        List<String> items = splitList(query.getOrDefault(name, List.of()));
        for (int i = 0; i < items.size(); i++) {
            List<Object> loc = ErrorDetail.loc("query", name, i);
            Long value = Constraints.text(errors, loc, items.get(i))
                    ? Constraints.integer(errors, loc, items.get(i), Long.MIN_VALUE, Long.MAX_VALUE)
                    : null;
            if (value != null) {
                parsed.add(value);
            }
        }
        return parsed;
    }

    /** A path parameter that must be a uuid; null when refused. */
    public UUID pathUuid(String name, String raw) {
        List<Object> loc = ErrorDetail.loc("path", name);
        if (Constraints.required(errors, loc, raw) && Constraints.text(errors, loc, raw)) {
            return Constraints.uuid(errors, loc, raw);
        }
        return null;
    }

    /**
     * An optional header of at most {@code max} characters; null when absent or refused. Its bytes are read as
     * UTF-8 (Netty hands them over one byte a character), so {@code é} counts one character, not two; a header
     * sent on several lines is one value, its lines joined by {@code ", "} (RFC 9110 §5.3), and counted whole.
     * Bytes that are not well-formed UTF-8 ({@code FF}, an overlong {@code C0 80}, an encoded surrogate, a sequence
     * cut short) are refused, {@link #headerNotUtf8}, never read with U+FFFD in their place (which made {@code FF}
     * and {@code FE} one value). A control character — U+0000 to U+001F but the tab, and U+007F, which a field
     * value may not hold (RFC 9110 §5.5) — is refused too, {@link #headerControlCharacter}: HTTP/1.1's decoder answers
     * such a request 400 before any route, and the ports speak nothing else ({@code quarkus.http.http2=false}), but
     * the check holds whatever the transport, as it did not when h2c handed a bare CR over.
     */
    public String header(String name, int max) {
        List<String> lines = headers.getAll(name);
        if (lines.isEmpty()) {
            return null;
        }
        List<Object> loc = ErrorDetail.loc("header", name);
        String raw = PercentDecoding.bytesAsUtf8(lines.size() == 1 ? lines.get(0) : String.join(", ", lines));
        if (raw == null) {
            errors.add(headerNotUtf8(loc));
            return null;
        }
        if (holdsControlCharacter(raw)) {
            errors.add(headerControlCharacter(loc));
            return null;
        }
        return Constraints.text(errors, loc, raw, 0, max) ? raw : null;
    }

    private static boolean holdsControlCharacter(String value) {
        for (int i = 0, n = value.length(); i < n; i++) {
            char c = value.charAt(i);
            if (c < ' ' && c != '\t' || c == 0x7F) {
                return true;
            }
        }
        return false;
    }

    /** A header holding a control character (U+0000 included): {@code value_error} at {@code ["header", name]}. */
    static ErrorDetail headerControlCharacter(List<Object> loc) {
        return ErrorDetail.valueError(loc, "control character");
    }

    /**
     * A header whose bytes are not well-formed UTF-8: {@code value_error} at {@code ["header", name]}, the header's
     * own place, as its other faults are ({@link #queryNotUtf8} is at {@code ["query"]} because a query that does
     * not decode cannot be split into parameters).
     */
    static ErrorDetail headerNotUtf8(List<Object> loc) {
        return ErrorDetail.valueError(loc, "not UTF-8");
    }

    /** Records a fault found by the caller. */
    public void add(ErrorDetail detail) {
        errors.add(detail);
    }

    public void addAll(List<ErrorDetail> details) {
        errors.addAll(details);
    }

    public boolean isValid() {
        return errors.isEmpty();
    }

    /** Answers 422 with every fault collected so far, if any. */
    public void throwIfInvalid() {
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors);
        }
    }

    /**
     * Every single-valued query parameter is read through here: one given more than once is refused (which was
     * meant cannot be known, and a proxy in front may have read another one), and one holding a character the
     * store cannot keep (percent-encoded {@code %00}) is refused as {@code string_pattern_mismatch}; either is
     * then treated as absent.
     */
    private String queryValue(String name) {
        List<String> values = query.get(name);
        if (values == null || values.isEmpty()) {
            return null;
        }
        List<Object> loc = ErrorDetail.loc("query", name);
        if (values.size() > 1) {
            errors.add(ErrorDetail.givenMoreThanOnce(loc));
            return null;
        }
        String raw = values.get(0);
        return Constraints.text(errors, loc, raw) ? raw : null;
    }

    private static List<String> splitList(List<String> raw) {
        List<String> items = new ArrayList<>();
        for (String value : raw) {
            for (String item : value.split(",", -1)) {
                items.add(item.strip());
            }
        }
        return items;
    }
}
