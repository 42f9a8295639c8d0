package io.outpost.model;

/** Every limit and default of spec §8 (and §4), in one place for the services and their tests. */
public final class Limits {

    /** Header {@code x-svc-client-addr}: at most 32 characters. */
    public static final int CLIENT_ADDR_MAX = 32;

    /** Long poll {@code max_page_size}: 1..100, default 10. */
    public static final int POLL_PAGE_SIZE_MIN = 1;
    public static final int POLL_PAGE_SIZE_MAX = 100;
    public static final int POLL_PAGE_SIZE_DEFAULT = 10;
    /** A page of the inbox (the vendor's {@code page_size}): 1 to 100, default 10. */
    public static final int INBOX_PAGE_SIZE_MIN = 1;
    public static final int INBOX_PAGE_SIZE_MAX = 100;
    public static final int INBOX_PAGE_SIZE_DEFAULT = 10;

    /** Long poll {@code deadline} in seconds: 0..900 (0 answers at once), default 30. */
    public static final int DEADLINE_MIN = 0;
    public static final int DEADLINE_MAX = 900;
    public static final int DEADLINE_DEFAULT = 30;

    /** History {@code cursor}: 1..128 characters, default "0" (the start). */
    public static final int CURSOR_MIN_LENGTH = 1;
    public static final int CURSOR_MAX_LENGTH = 128;
    public static final String CURSOR_START = "0";

    /** History {@code page_size}: 1..10000, default 50. */
    public static final int HISTORY_PAGE_SIZE_MIN = 1;
    public static final int HISTORY_PAGE_SIZE_MAX = 10000;
    public static final int HISTORY_PAGE_SIZE_DEFAULT = 50;

    /** Role history {@code name} filter: 1..128 characters. */
    public static final int NAME_FILTER_MIN_LENGTH = 1;
    public static final int NAME_FILTER_MAX_LENGTH = 128;

    /** HTTP publish: 1..100 notifications per request. */
    public static final int PUBLISH_BATCH_MIN = 1;
    public static final int PUBLISH_BATCH_MAX = 100;

    /**
     * Longest HTTP request line every service and the local gateway read, in bytes ({@code GET /…?… HTTP/1.1});
     * longer ones are answered 414 by Vert.x before any route. ingress-nginx's default (one 8 KiB buffer), so what the
     * ingress passes a service reads: about 200 uuids in one {@code role_ids} filter. Mirrored by
     * {@code quarkus.http.limits.max-initial-line-length} in service-support's shared configuration.
     */
    public static final int REQUEST_LINE_MAX_BYTES = 8 * 1024;

    /** Most bytes of request headers read (Quarkus's default); more is a 431. {@code quarkus.http.limits.max-header-size}. */
    public static final int REQUEST_HEADERS_MAX_BYTES = 20 * 1024;

    private Limits() {
    }
}
