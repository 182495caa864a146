package io.flashstock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** A loopback port that was free a moment ago, for a service process a test starts. */
public final class FreePort {

    private FreePort() {
    }

    public static int find() {
        try (var socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first of {@code count} consecutive loopback ports that were all free a moment ago. */
    public static int range(int count) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int first = find();
            if (first + count <= 65_536 && allFree(first, count)) {
                return first;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free ports found");
    }

    private static boolean allFree(int first, int count) {
        for (int port = first; port < first + count; port++) {
            try (var socket = new ServerSocket(port)) {
                socket.setReuseAddress(true);
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
