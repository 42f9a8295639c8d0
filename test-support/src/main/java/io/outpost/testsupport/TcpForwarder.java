package io.outpost.testsupport;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;

/**
 * A loopback TCP port whose connections are relayed, byte for byte, to a target port that can be moved: what
 * CloudNativePG's {@code -rw} Service is to the services (one address; behind it, whichever instance is primary).
 * Moving the target ends every relayed connection, as the old endpoint's going does; a connection whose target
 * refuses it is closed at once, as a Service without a ready endpoint does.
 */
public final class TcpForwarder implements AutoCloseable {

    private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2).setWorkerPoolSize(1));
    private final NetClient client = vertx.createNetClient(new NetClientOptions().setConnectTimeout(2_000));
    private final Set<NetSocket> open = ConcurrentHashMap.newKeySet();
    private final NetServer server;
    private volatile int target;

    private TcpForwarder(int target) {
        this.target = target;
        this.server = vertx.createNetServer().connectHandler(this::accept);
    }

    /** Listens on a free loopback port and relays to {@code target} on 127.0.0.1. */
    public static TcpForwarder start(int target) {
        TcpForwarder forwarder = new TcpForwarder(target);
        try {
            forwarder.server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            forwarder.close();
            throw new IllegalStateException("the forwarder cannot listen", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            forwarder.close();
            throw new IllegalStateException(e);
        }
        return forwarder;
    }

    /** The port clients connect to. */
    public int port() {
        return server.actualPort();
    }

    public int target() {
        return target;
    }

    /** Relays new connections to {@code port} and ends every connection relayed so far. */
    public void target(int port) {
        target = port;
        open.forEach(NetSocket::close);
    }

    private void accept(NetSocket in) {
        in.pause();
        open.add(in);
        in.closeHandler(v -> open.remove(in));
        client.connect(target, "127.0.0.1").onComplete(connected -> {
            if (connected.failed()) {
                in.close();
                return;
            }
            NetSocket out = connected.result();
            if (!open.contains(in)) { // closed meanwhile: by its client, or by a move of the target
                out.close();
                return;
            }
            open.add(out);
            out.closeHandler(v -> {
                open.remove(out);
                in.close();
            });
            in.closeHandler(v -> {
                open.remove(in);
                out.close();
            });
            out.pipeTo(in);
            in.pipeTo(out);
        });
    }

    @Override
    public void close() {
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            System.err.println("the forwarder did not close cleanly: " + e);
        }
    }
}
