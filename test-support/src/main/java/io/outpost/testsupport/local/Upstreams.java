package io.outpost.testsupport.local;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The gateway's routes: each path prefix and the instances (loopback ports) serving it, taken in turn, as a
 * Kubernetes Service's ready endpoints are. An instance is added beside another ({@link #add}) and taken out
 * before it stops ({@link #remove}), as its endpoint is when its pod starts and when it starts terminating.
 */
final class Upstreams {

    private final Map<String, List<Integer>> routes = new LinkedHashMap<>();
    private final AtomicInteger turn = new AtomicInteger();

    /** @param first path prefix → the one port serving it, matched in order */
    Upstreams(Map<String, Integer> first) {
        first.forEach((prefix, port) -> routes.put(prefix, new CopyOnWriteArrayList<>(List.of(port))));
    }

    /** The prefix serving {@code path} (matched on whole segments), or null. */
    String prefixOf(String path) {
        for (String prefix : routes.keySet()) {
            if (path.equals(prefix) || path.startsWith(prefix + "/")) {
                return prefix;
            }
        }
        return null;
    }

    /**
     * The next instance of {@code prefix} in turn that is not in {@code tried}; -1 when every one was (an
     * instance taken out meanwhile is not offered again).
     */
    int next(String prefix, Set<Integer> tried) {
        List<Integer> ports = routes.get(prefix);
        int size = ports.size();
        int start = Math.floorMod(turn.getAndIncrement(), Math.max(1, size));
        for (int i = 0; i < size; i++) {
            int port = ports.get((start + i) % size);
            if (!tried.contains(port)) {
                return port;
            }
        }
        return -1;
    }

    /** Serves every prefix that {@code beside} serves with {@code port} too. */
    void add(int beside, int port) {
        routes.values().stream().filter(ports -> ports.contains(beside) && !ports.contains(port))
                .forEach(ports -> ports.add(port));
    }

    /** Takes {@code port} out of every prefix that another instance also serves. */
    void remove(int port) {
        routes.values().stream().filter(ports -> ports.size() > 1).forEach(ports -> ports.remove(Integer.valueOf(port)));
    }
}
