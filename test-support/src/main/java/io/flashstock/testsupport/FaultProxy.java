package io.flashstock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A TCP proxy in front of a real server (the database) with the two faults of a dead network path, where no reset
 * ever arrives:
 * <ul>
 *   <li>{@link #freezeAt}: armed with a piece of SQL, it stops passing bytes when a client sends it, before passing
 *   it on, so the statement is in flight on a connection the pool had handed out, with no answer coming. Frozen, it
 *   still accepts connections and reads what both sides send, and holds it until {@link #thaw}ed.</li>
 *   <li>{@link #cutOpenConnections}: the server's side of every open connection is closed (the server rolls back
 *   and frees the locks, as when a client goes away); the client's socket stays open and never receives another
 *   byte. New connections go through.</li>
 * </ul>
 */
public final class FaultProxy implements AutoCloseable {

    private static final int BUFFER_BYTES = 64 * 1024;

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final ExecutorService threads = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "fault-proxy");
        thread.setDaemon(true);
        return thread;
    });
    private final Object gate = new Object();
    private byte[] freezeAt;
    private boolean frozen;

    private FaultProxy(String targetHost, int targetPort) throws IOException {
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        threads.execute(this::accept);
    }

    public static FaultProxy to(String host, int port) {
        try {
            return new FaultProxy(host, port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return listener.getLocalPort();
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

    /** Every connection open now goes dead; connections opened afterwards work. */
    public void cutOpenConnections() {
        links.forEach(Link::cut);
    }

    /** Thaws, then closes the listening socket and every connection. */
    @Override
    public void close() {
        thaw();
        try {
            listener.close();
        } catch (IOException e) {
            // closing anyway
        }
        links.forEach(Link::close);
        threads.shutdownNow();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Link link = new Link(client, new Socket(targetHost, targetPort));
                links.add(link);
                threads.execute(() -> link.pump(true));
                threads.execute(() -> link.pump(false));
            } catch (IOException e) {
                // the listener closed, or the server refused one connection: its client sees it closed
            }
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

    private final class Link {

        private final Socket client;
        private final Socket server;
        private volatile boolean cut;

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        /** Copies one direction until its source ends; held while frozen; after a cut, the client's bytes go nowhere. */
        void pump(boolean fromClient) {
            Socket from = fromClient ? client : server;
            Socket to = fromClient ? server : client;
            byte[] buffer = new byte[BUFFER_BYTES];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    awaitThawed(fromClient ? Arrays.copyOf(buffer, n) : null);
                    if (!cut) {
                        out.write(buffer, 0, n);
                    }
                }
            } catch (IOException e) {
                // one side went away
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // the server's side ending after a cut must not tell the client anything
            if (fromClient || !cut) {
                close();
            }
        }

        void cut() {
            cut = true;
            closeQuietly(server);
        }

        void close() {
            closeQuietly(client);
            closeQuietly(server);
            links.remove(this);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already gone
        }
    }
}
