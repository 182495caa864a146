package io.flashstock.stock.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A TCP proxy in front of a real server that can stop passing bytes without closing anything: to a client, the
 * server then hangs, as one does behind a dead network path, where no reset ever arrives. Armed with a piece of SQL,
 * it freezes when a client sends it, before passing it on, so the statement is in flight on a connection the pool
 * had handed out, with no answer coming. Frozen, it still accepts connections and reads what both sides send, and
 * holds it until it is thawed.
 */
public final class FreezableProxy implements AutoCloseable {

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "freezable-proxy");
        thread.setDaemon(true);
        return thread;
    });
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private byte[] freezeAt;
    private boolean frozen;

    private FreezableProxy(String targetHost, int targetPort) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        threads.execute(this::acceptLoop);
    }

    public static FreezableProxy to(String host, int port) {
        try {
            return new FreezableProxy(host, port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Freezes when a client next sends bytes that contain {@code statementText}. */
    public void freezeAt(String statementText) {
        synchronized (gate) {
            freezeAt = statementText.getBytes(StandardCharsets.UTF_8);
        }
    }

    public boolean frozen() {
        synchronized (gate) {
            return frozen;
        }
    }

    public void thaw() {
        synchronized (gate) {
            freezeAt = null;
            frozen = false;
            gate.notifyAll();
        }
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(targetHost, targetPort);
                sockets.add(client);
                sockets.add(upstream);
                threads.execute(() -> pump(client, upstream, true));
                threads.execute(() -> pump(upstream, client, false));
            } catch (IOException e) {
                // closed, or the target refused: the client sees its connection end
            }
        }
    }

    private void pump(Socket from, Socket to, boolean fromClient) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                awaitThawed(fromClient ? Arrays.copyOf(buffer, read) : null);
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException e) {
            // one side went away: end both
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void awaitThawed(byte[] sent) throws InterruptedException {
        synchronized (gate) {
            if (sent != null && freezeAt != null && contains(sent, freezeAt)) {
                frozen = true;
            }
            while (frozen) {
                gate.wait();
            }
        }
    }

    private static boolean contains(byte[] bytes, byte[] part) {
        outer:
        for (int i = 0; i <= bytes.length - part.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (bytes[i + j] != part[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    /** Thaws, then closes the listening socket and every connection. */
    @Override
    public void close() {
        thaw();
        try {
            server.close();
        } catch (IOException e) {
            // already closed
        }
        sockets.forEach(FreezableProxy::closeQuietly);
        threads.shutdownNow();
    }
}
