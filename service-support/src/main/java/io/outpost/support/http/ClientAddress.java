package io.outpost.support.http;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;

/**
 * The client's address as this service can vouch for it: the right-most {@code X-Forwarded-For} entry that is not a
 * trusted proxy ({@code quarkus.http.proxy.trusted-proxies}), found by walking from the TCP peer leftwards through
 * the trusted hops. Quarkus puts the <em>first</em> entry into the request's remote address; that is right only
 * behind an edge that replaces the header (the local gateway, ingress-nginx). An edge that appends the peer it saw
 * (Envoy's default) passes on whatever the client itself sent in front of it, so the first entry is the client's
 * choice. The right-most untrusted entry is the peer the last trusted hop saw, whichever kind of edge that was.
 *
 * <p>A peer that is no trusted proxy is the client, whatever it sent. When every entry is a trusted proxy the
 * left-most is the client; an entry that is no address ends the walk at the hop that passed it on.
 */
@Singleton
public class ClientAddress {

    private final boolean forwarding;
    private final List<Cidr> trusted;

    public ClientAddress(
            @ConfigProperty(name = "quarkus.http.proxy.proxy-address-forwarding", defaultValue = "false") boolean proxyForwarding,
            @ConfigProperty(name = "quarkus.http.proxy.allow-x-forwarded", defaultValue = "false") boolean xForwarded,
            @ConfigProperty(name = "quarkus.http.proxy.trusted-proxies") Optional<List<String>> trustedProxies) {
        this.forwarding = proxyForwarding && xForwarded;
        this.trusted = trustedProxies.orElse(List.of()).stream().map(Cidr::parse).flatMap(List::stream).toList();
    }

    /** The request's client address, e.g. {@code 192.0.2.77}; {@code "unknown"} when the connection has no peer. */
    public String of(HttpServerRequest request) {
        SocketAddress peer = request.connection() == null ? null : request.connection().remoteAddress();
        if (peer == null || peer.hostAddress() == null) {
            return "unknown";
        }
        return of(peer.hostAddress(), request.headers().getAll("X-Forwarded-For"));
    }

    /** The client address behind {@code peer}, given the {@code X-Forwarded-For} header lines as received. */
    String of(String peer, List<String> forwardedFor) {
        InetAddress hop = literal(peer);
        if (hop == null || !forwarding || !isTrusted(hop)) {
            return peer;
        }
        List<String> entries = new ArrayList<>();
        for (String line : forwardedFor) {
            for (String entry : line.split(",", -1)) {
                entries.add(entry.trim());
            }
        }
        for (int i = entries.size() - 1; i >= 0; i--) {
            InetAddress entry = literal(withoutPort(entries.get(i)));
            if (entry == null) {
                break; // the trusted hop to its right passed on what it was given: that hop is as far as we know
            }
            hop = entry;
            if (!isTrusted(entry)) {
                break;
            }
        }
        return hop.getHostAddress();
    }

    private boolean isTrusted(InetAddress address) {
        for (Cidr cidr : trusted) {
            if (cidr.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /** {@code 192.0.2.1:1234} → {@code 192.0.2.1}, {@code [2001:db8::1]:80} → {@code 2001:db8::1}. */
    private static String withoutPort(String entry) {
        if (entry.startsWith("[")) {
            int end = entry.indexOf(']');
            return end < 0 ? entry : entry.substring(1, end);
        }
        int colon = entry.indexOf(':');
        return colon >= 0 && colon == entry.lastIndexOf(':') ? entry.substring(0, colon) : entry;
    }

    /** An IP literal's address, or null for anything else (never a name lookup: an entry is what a client sent). */
    static InetAddress literal(String text) {
        if (text.isEmpty() || text.length() > 45 || !text.chars().allMatch(c -> c == '.' || c == ':'
                || Character.digit(c, 16) >= 0)) {
            return null;
        }
        if (text.indexOf(':') < 0 && (text.split("\\.", -1).length != 4
                || !text.chars().allMatch(c -> c == '.' || Character.isDigit(c)))) {
            return null;
        }
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** One trusted-proxies entry: an address, a CIDR, or a host name (resolved once, at start). */
    record Cidr(byte[] network, int prefix) {

        static List<Cidr> parse(String entry) {
            String text = entry.trim();
            int slash = text.indexOf('/');
            String host = slash < 0 ? text : text.substring(0, slash);
            InetAddress address = literal(host);
            if (address != null) {
                int bits = address.getAddress().length * 8;
                return List.of(new Cidr(address.getAddress(), slash < 0 ? bits : Integer.parseInt(text.substring(slash + 1))));
            }
            try {
                return java.util.Arrays.stream(InetAddress.getAllByName(withoutPort(host)))
                        .map(a -> new Cidr(a.getAddress(), a.getAddress().length * 8)).toList();
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("quarkus.http.proxy.trusted-proxies: unknown host " + host, e);
            }
        }

        boolean contains(InetAddress address) {
            byte[] bytes = address.getAddress();
            if (bytes.length != network.length) {
                return false;
            }
            int bits = bytes.length * 8;
            BigInteger mask = BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE)
                    .xor(BigInteger.ONE.shiftLeft(bits - prefix).subtract(BigInteger.ONE));
            return new BigInteger(1, bytes).and(mask).equals(new BigInteger(1, network).and(mask));
        }
    }
}
