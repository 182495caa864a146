package io.flashstock.system;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Clients that misbehave on the wire, against the real jars: a 10 MB body, clients that send their body a
 * byte at a time, and hostile paths on stock-consumer's endpoint. Each gets a 4xx (or is cut off), other
 * clients buy meanwhile, and nothing is sold or changed for the hostile ones.
 */
class HostileClientsIT {

    private static final int TRICKLING_CLIENTS = 4;
    private static final int ORDERS_MEANWHILE = 5;

    private static Pipeline pipeline;
    private static String item;
    private static String servedItem;

    @BeforeAll
    static void startPipeline() {
        pipeline = new Pipeline(Map.of("FLASHSTOCK_WARMUP_ENABLED", "false"));
        item = "hostile-" + UUID.randomUUID().toString().substring(0, 8);
        pipeline.resetStock(item, 1_000);
        servedItem = "served-" + UUID.randomUUID().toString().substring(0, 8);
        pipeline.resetStock(servedItem, 1_000);
    }

    @AfterAll
    static void stopPipeline() {
        if (pipeline != null) {
            pipeline.close();
        }
    }

    @Test
    void aTenMegabyteBodyIsRefusedBeforeItIsRead() throws Exception {
        URI api = URI.create(pipeline.orderApiUrl());
        long started = System.nanoTime();
        try (Socket client = new Socket(api.getHost(), api.getPort())) {
            client.setSoTimeout(10_000);
            int length = 10 * 1024 * 1024;
            OutputStream out = client.getOutputStream();
            out.write(("POST /order/stock/limit HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            // the body is written beside the read: the server answers and closes long before it could all be sent
            CompletableFuture.runAsync(() -> writeSpaces(out, length));

            String answer = readUntilClosed(client.getInputStream());

            assertThat(answer).startsWith("HTTP/1.1 413");
            assertThat(answer).containsIgnoringCase("Content-Type: application/problem+json");
            assertThat(answer).contains("\"code\":\"BODY_TOO_LARGE\"");
        }
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        assertNothingSold();
    }

    @Test
    void clientsTricklingTheirBodiesAreCutOffWhileOthersBuy() throws Exception {
        URI api = URI.create(pipeline.orderApiUrl());
        String body = "{\"itemCode\":\"" + item + "\",\"userId\":\"slow\",\"quantity\":1}";
        List<Socket> slow = new ArrayList<>();
        try {
            for (int i = 0; i < TRICKLING_CLIENTS; i++) {
                Socket client = new Socket(api.getHost(), api.getPort());
                slow.add(client);
                client.getOutputStream().write(("POST /order/stock/limit HTTP/1.1\r\nHost: localhost\r\n"
                        + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n"
                        + body.charAt(0)).getBytes(StandardCharsets.US_ASCII));
                client.getOutputStream().flush();
            }
            long started = System.nanoTime();

            // while they hold their requests, other clients buy: real orders, through Redis and the database
            for (int i = 0; i < ORDERS_MEANWHILE; i++) {
                assertThat(pipeline.order(servedItem, 1)).as("order %d while the trickling clients wait", i)
                        .isEqualTo(200);
            }
            for (Socket client : slow) {
                assertThat(stillWaiting(client)).as("the trickling client still holds its request").isTrue();
            }
            assertThat(pipeline.countInOrders("SELECT COUNT(*) FROM purchase_order WHERE item_code = ?", servedItem))
                    .isEqualTo(ORDERS_MEANWHILE);

            // the server gives up on the trickle (Tomcat's connection timeout) instead of holding a thread forever
            for (Socket client : slow) {
                client.setSoTimeout(30_000);
                String answer = readUntilClosed(client.getInputStream());
                assertThat(answer).doesNotStartWith("HTTP/1.1 200");
            }
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
        } finally {
            for (Socket client : slow) {
                client.close();
            }
        }
        assertNothingSold();
    }

    /**
     * True while the server neither answered nor closed the connection: a read finds nothing within a
     * millisecond (a closed connection reads -1 at once, an answer reads its bytes).
     */
    private static boolean stillWaiting(Socket client) throws IOException {
        client.setSoTimeout(1);
        try {
            client.getInputStream().read();
            return false;
        } catch (SocketTimeoutException nothingYet) {
            return true;
        }
    }

    @Test
    void hostilePathsOnStockConsumerGetProblemAnswers() {
        for (String path : new String[]{"/stock/items/" + "a".repeat(10_000), "/stock/items/k%C3%A4se",
                "/stock/items/%00", "/stock/items/..%2F..%2Fetc"}) {
            HttpResponse<String> response = pipeline.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + pipeline.consumer.port() + path)).GET().build());
            assertThat(response.statusCode()).as(path).isBetween(400, 499);
        }
        assertThat(pipeline.stockItem(item)).isNotNull();
    }

    private static void assertNothingSold() {
        await().atMost(Duration.ofSeconds(30)).until(() -> pipeline.stockItem(item) != null);
        JsonNode stock = pipeline.stockItem(item);
        assertThat(stock.get("quantity").asLong()).isEqualTo(1_000);
        assertThat(pipeline.countInOrders("SELECT COUNT(*) FROM purchase_order WHERE item_code = ?", item)).isZero();
    }

    /** What the server sent until it closed the connection; a reset after its answer ends the answer too. */
    private static String readUntilClosed(InputStream in) throws IOException {
        var answer = new StringBuilder();
        byte[] buffer = new byte[1024];
        try {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                answer.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
            }
        } catch (SocketException reset) {
            if (answer.isEmpty()) {
                throw reset;
            }
        }
        return answer.toString();
    }

    /** Writes until done or until the server closed the connection, which is what it should do. */
    private static void writeSpaces(OutputStream out, int length) {
        byte[] chunk = new byte[64 * 1024];
        java.util.Arrays.fill(chunk, (byte) ' ');
        try {
            for (int sent = 0; sent < length; sent += chunk.length) {
                out.write(chunk, 0, Math.min(chunk.length, length - sent));
            }
        } catch (IOException closedByServer) {
            // expected: the answer was 413 and the connection is gone
        }
    }
}
