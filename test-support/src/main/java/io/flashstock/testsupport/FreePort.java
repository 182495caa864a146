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
}
