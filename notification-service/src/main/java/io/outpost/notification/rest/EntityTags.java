package io.outpost.notification.rest;

/** RFC 9110 §13.1.2: whether an {@code If-None-Match} value names an entity tag (weak comparison). */
final class EntityTags {

    private EntityTags() {
    }

    /** True when {@code ifNoneMatch} (a list of entity tags, or {@code *}) names {@code etag}; false when absent. */
    static boolean matches(String ifNoneMatch, String etag) {
        if (ifNoneMatch == null) {
            return false;
        }
        String opaque = opaque(etag);
        for (String candidate : ifNoneMatch.split(",")) {
            String tag = candidate.strip();
            if (tag.equals("*") || opaque(tag).equals(opaque)) {
                return true;
            }
        }
        return false;
    }

    /** The quoted part of an entity tag, without a weak prefix. */
    private static String opaque(String tag) {
        return tag.startsWith("W/") ? tag.substring(2) : tag;
    }
}
