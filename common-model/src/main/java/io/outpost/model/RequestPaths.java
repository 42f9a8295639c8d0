package io.outpost.model;

/**
 * Request paths that one HTTP component may read as another path than the next one does, refused alike by the
 * local gateway (400, before it routes) and by every service (422, before any route): a proxy that routes by one
 * reading and a service that serves by another would let {@code /users/../q/metrics} reach what no route exposes.
 * Refused: a dot-segment ({@code .} or {@code ..}, also escaped as {@code %2e}, also before {@code ;} parameters
 * as in {@code ..;x}, which some servers strip), an escaped slash ({@code %2f}) or backslash ({@code %5c}), a
 * backslash, and those three escaped twice ({@code %252e}, {@code %252f}, {@code %255c}): no Outpost component
 * decodes twice, but one that did would find a dot-segment or a separator there. No Outpost path holds any of them:
 * its segments are fixed words, uuids and ids.
 */
public final class RequestPaths {

    public static final String DOT_SEGMENT = "dot-segment";
    public static final String ENCODED_SLASH = "encoded slash";
    public static final String ENCODED_BACKSLASH = "encoded backslash";
    public static final String BACKSLASH = "backslash";
    public static final String DOUBLE_ENCODED = "double-encoded dot, slash or backslash";

    private RequestPaths() {
    }

    /**
     * Why the path of {@code target} — a request target in origin-form ({@code /p?q}) or absolute-form
     * ({@code http://host/p?q}), still escaped — is refused; null when it is not, and for a target of another form
     * ({@code *}, {@code host:443}), which has no path. The path is what precedes the query, a fragment (which a
     * client should not send) included. Allocates nothing: every request of every service passes here.
     */
    public static String fault(String target) {
        int start = pathStart(target);
        if (start < 0) {
            return null;
        }
        int end = target.indexOf('?', start);
        end = end < 0 ? target.length() : end;
        int segment = start;
        for (int i = start; i < end; i++) {
            char c = target.charAt(i);
            if (c == '\\') {
                return BACKSLASH;
            }
            if (c == '%') {
                String escaped = escaped(target, i);
                if (escaped != null) {
                    return escaped;
                }
            } else if (c == '/') {
                if (isDotSegment(target, segment, i)) {
                    return DOT_SEGMENT;
                }
                segment = i + 1;
            }
        }
        return isDotSegment(target, segment, end) ? DOT_SEGMENT : null;
    }

    /** Where the path of {@code target} starts; its length when it has none but a query; -1 when it is no URI. */
    private static int pathStart(String target) {
        if (target == null || target.isEmpty()) {
            return -1;
        }
        if (target.charAt(0) == '/') {
            return 0;
        }
        int scheme = target.indexOf("://");
        if (scheme < 0) {
            return -1;
        }
        int slash = target.indexOf('/', scheme + 3);
        int query = target.indexOf('?', scheme + 3);
        return slash < 0 || query >= 0 && query < slash ? target.length() : slash;
    }

    /** The fault of the escape at {@code at}, if it spells a separator, once or twice escaped. */
    private static String escaped(String path, int at) {
        int value = hex(path, at + 1);
        if (value == '/') {
            return ENCODED_SLASH;
        }
        if (value == '\\') {
            return ENCODED_BACKSLASH;
        }
        if (value == '%') {
            int twice = hex(path, at + 3);
            if (twice == '.' || twice == '/' || twice == '\\') {
                return DOUBLE_ENCODED;
            }
        }
        return null;
    }

    /**
     * Whether {@code path[from, to)}, up to a {@code ;} in it, is {@code .} or {@code ..}, each dot as it is or
     * escaped.
     */
    private static boolean isDotSegment(String path, int from, int to) {
        int dots = 0;
        int i = from;
        while (i < to && path.charAt(i) != ';') {
            if (path.charAt(i) == '.') {
                i++;
            } else if (path.charAt(i) == '%' && hex(path, i + 1) == '.') {
                i += 3;
            } else {
                return false;
            }
            dots++;
        }
        return dots == 1 || dots == 2;
    }

    /** The byte two ASCII hex digits at {@code at} spell; -1 when they do not. */
    private static int hex(String path, int at) {
        if (at + 1 >= path.length()) {
            return -1;
        }
        int high = digit(path.charAt(at));
        int low = digit(path.charAt(at + 1));
        return high < 0 || low < 0 ? -1 : high << 4 | low;
    }

    private static int digit(char c) {
        return c > 0x7F ? -1 : Character.digit(c, 16);
    }
}
