package io.flashstock.relay;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A TCP proxy in front of the database whose open connections can be cut the way a dead network path cuts
 * them: the server's side is closed (the server rolls back and frees the locks, as when a client goes
 * away), the client's socket stays open and never receives another byte. New connections go through.
 */
public final class DeadSocketProxy implements AutoCloseable {

    private static final int BUFFER_BYTES = 16 * 1024;

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final ExecutorService threads = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "dead-socket-proxy");
        thread.setDaemon(true);
        return thread;
    });

    private DeadSocketProxy(String targetHost, int targetPort) throws IOException {
        this.listener = new ServerSocket(0);
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        threads.execute(this::accept);
    }

    public static DeadSocketProxy to(String host, int port) {
        try {
            return new DeadSocketProxy(host, port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Every connection open now goes dead; connections opened afterwards work. */
    public void cutOpenConnections() {
        links.forEach(Link::cut);
    }

    @Override
    public void close() {
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

    private final class Link {

        private final Socket client;
        private final Socket server;
        private volatile boolean cut;

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        /** Copies one direction until its source ends; after a cut, what the client sends goes nowhere. */
        void pump(boolean fromClient) {
            Socket from = fromClient ? client : server;
            Socket to = fromClient ? server : client;
            byte[] buffer = new byte[BUFFER_BYTES];
            try (InputStream in = from.getInputStream()) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    if (!cut) {
                        to.getOutputStream().write(buffer, 0, n);
                    }
                }
            } catch (IOException e) {
                // one side went away
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
