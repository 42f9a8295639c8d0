package io.outpost.auth.security;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Which keys are published and which one signs, over time (rotation with overlap, docs/auth.md):
 *
 * <ol>
 * <li>A key present at start may sign at once; a key that appears later is published at once and may sign only
 * {@code activation-delay} after it appeared, so that verifiers hold it first.</li>
 * <li>The signer is {@code active-kid} when configured, else the greatest kid that may sign.</li>
 * <li>A key older than the signer (smaller kid) that no longer signs is unpublished {@code retire-after} after it
 * stopped signing (or after start, if it never signed here), once every token it signed has expired. Keys newer
 * than the signer are kept: they are the next ones. A key whose file is removed leaves at once.</li>
 * </ol>
 * Not thread-safe: {@link KeyRing} serialises access.
 */
final class KeySchedule {

    /** The published keys and the signer at some instant, and when that will next change. */
    record View(SigningKey active, Map<String, SigningKey> published, Instant nextChange) {
    }

    private static final class Entry {
        final SigningKey key;
        final Instant signsFrom;
        Instant stoppedAt;

        Entry(SigningKey key, Instant signsFrom) {
            this.key = key;
            this.signsFrom = signsFrom;
        }
    }

    private final Duration activationDelay;
    private final Duration retireAfter;
    private final Optional<String> activeKid;
    private final Map<String, Entry> entries = new TreeMap<>();
    private String lastActive;

    KeySchedule(Collection<SigningKey> atStart, Duration activationDelay, Duration retireAfter,
            Optional<String> activeKid) {
        this.activationDelay = activationDelay;
        this.retireAfter = retireAfter;
        this.activeKid = activeKid;
        atStart.forEach(key -> add(key, Instant.MIN));
        if (activeKid.isPresent() && !entries.containsKey(activeKid.get())) {
            throw new IllegalStateException("outpost.auth.keys.active-kid=" + activeKid.get()
                    + " names no configured key; known: " + entries.keySet());
        }
    }

    /**
     * The keys configured now (never empty): new kids are scheduled from {@code now}; a kid whose file is gone leaves
     * at once, the signer's too (a compromised key).
     */
    void update(Collection<SigningKey> present, Instant now) {
        Map<String, SigningKey> byKid = new LinkedHashMap<>();
        present.forEach(key -> byKid.put(key.kid(), key));
        entries.keySet().removeIf(kid -> !byKid.containsKey(kid));
        for (SigningKey key : byKid.values()) {
            Entry known = entries.get(key.kid());
            if (known == null || !known.key.publicKey().equals(key.publicKey())) {
                add(key, now.plus(activationDelay));
            }
        }
    }

    View at(Instant now) {
        Entry active = signer(now);
        Instant next = Instant.MAX;
        for (Entry entry : entries.values()) {
            if (entry == active) {
                entry.stoppedAt = null;
            } else if (entry.stoppedAt == null && (entry.key.kid().equals(lastActive)
                    || entry.key.kid().compareTo(active.key.kid()) < 0)) {
                entry.stoppedAt = now;
            }
            if (entry.signsFrom.isAfter(now)) {
                next = min(next, entry.signsFrom);
            }
        }
        lastActive = active.key.kid();
        Map<String, SigningKey> published = new LinkedHashMap<>();
        for (Entry entry : entries.values()) {
            Instant retiresAt = entry.stoppedAt == null ? null : entry.stoppedAt.plus(retireAfter);
            if (retiresAt == null || now.isBefore(retiresAt)) {
                published.put(entry.key.kid(), entry.key);
                if (retiresAt != null) {
                    next = min(next, retiresAt);
                }
            }
        }
        return new View(active.key, Map.copyOf(published), next);
    }

    private Entry signer(Instant now) {
        if (activeKid.isPresent() && entries.containsKey(activeKid.get())) {
            return entries.get(activeKid.get());
        }
        List<Entry> ready = entries.values().stream().filter(e -> !e.signsFrom.isAfter(now)).toList();
        Collection<Entry> candidates = ready.isEmpty() ? entries.values() : ready;
        return candidates.stream().max(Comparator.comparing(e -> e.key.kid())).orElseThrow();
    }

    private void add(SigningKey key, Instant signsFrom) {
        entries.put(key.kid(), new Entry(key, signsFrom));
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }
}
