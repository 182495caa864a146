package io.flashstock.order;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Requests sent from a chosen loopback address (any of 127.0.0.0/8 reaches the service on Linux), so that a test can
 * be two clients at two addresses, as the service sees them: JDK 17's HttpClient cannot bind its local address, so
 * this speaks HTTP/1.0 over a plain socket (one request per connection, the answer ends with it).
 */
public final class AddressedClient {

    /** Each call a loopback address no other call of this JVM got, never 127.0.0.1 (what ApiClient uses). */
    private static final AtomicInteger NEXT = new AtomicInteger((int) (Math.random() * 50_000));

    private final int port;
    private final InetAddress local;

    public AddressedClient(int port, String localAddress) {
        this.port = port;
        try {
            this.local = InetAddress.getByName(localAddress);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A loopback address of its own: 127.1.x.y. */
    public static String freshLoopbackAddress() {
        int n = NEXT.incrementAndGet() % 65_000;
        return "127.1." + (n / 250) + "." + (1 + n % 250);
    }

    public ApiClient.Answer post(String path, String json, String... headers) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        var request = new StringBuilder("POST ").append(path).append(" HTTP/1.0\r\n")
                .append("Host: 127.0.0.1:").append(port).append("\r\n")
                .append("Content-Type: application/json\r\n")
                .append("Content-Length: ").append(body.length).append("\r\n");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        request.append("\r\n");
        try (var socket = new Socket()) {
            socket.bind(new InetSocketAddress(local, 0));
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
            socket.setSoTimeout(20_000);
            var out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            var answer = new ByteArrayOutputStream();
            socket.getInputStream().transferTo(answer);
            return parse(answer.toString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ApiClient.Answer parse(String raw) {
        int end = raw.indexOf("\r\n\r\n");
        String[] lines = raw.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.computeIfAbsent(lines[i].substring(0, colon).toLowerCase(Locale.ROOT), name -> new ArrayList<>())
                    .add(lines[i].substring(colon + 1).trim());
        }
        return new ApiClient.Answer(status, HttpHeaders.of(headers, (name, value) -> true), raw.substring(end + 4));
    }
}
