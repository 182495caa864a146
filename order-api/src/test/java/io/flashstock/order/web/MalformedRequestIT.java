package io.flashstock.order.web;

import io.flashstock.order.ApiClient;
import io.flashstock.order.OrderApiIntegrationTest;
import io.flashstock.order.stock.StockKeys;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.ServletContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.context.WebApplicationContext;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A battery of bad requests: each is answered with its 4xx problem+json and stable code, and none changes
 * the item's Redis keys, its baseline, or any order or outbox row. Tomcat's connection timeout is raised for
 * this class, so that a server that waited for a body before answering would be seen waiting, not cut off.
 */
@TestPropertySource(properties = "server.tomcat.connection-timeout=120s")
class MalformedRequestIT extends OrderApiIntegrationTest {

    private static final String ITEM = uniqueItem("battery");
    private static final String ORDER = "/order/stock/limit";
    private static final String DB_LOCK_ORDER = "/order/stock/limit/db-lock";
    private static final String STOCK = "/admin/items/" + ITEM + "/stock";
    private static final String VALID = ApiClient.orderJson(ITEM, "u1", 1);
    private static final long STOCK_UNITS = 7;
    private static final String BOUNDARY = "hostile-boundary";
    private static final Duration ANSWERED = Duration.ofSeconds(60);

    @Autowired
    private WebApplicationContext context;

    @Autowired
    private MeterRegistry meters;

    @DynamicPropertySource
    static void infrastructure(DynamicPropertyRegistry registry) {
        sharedInfrastructure(registry, "battery");
    }

    /** One bad request: how to send it, and the answer expected. */
    record Case(String name, Function<ApiClient, HttpRequest.Builder> request, int status, String code) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Case> cases() {
        var cases = new ArrayList<Case>();
        // broken JSON
        cases.add(order("truncated JSON", "{\"itemCode\":\"" + ITEM + "\",", 400, "MALFORMED_JSON"));
        cases.add(order("not JSON", "hello", 400, "MALFORMED_JSON"));
        cases.add(order("empty body", "", 400, "MALFORMED_JSON"));
        cases.add(order("JSON null", "null", 400, "MALFORMED_JSON"));
        cases.add(order("single quotes", "{'itemCode':'" + ITEM + "','userId':'u1','quantity':1}", 400, "MALFORMED_JSON"));
        cases.add(order("comment", "/* hi */" + VALID, 400, "MALFORMED_JSON"));
        cases.add(order("NaN quantity", VALID.replace(":1}", ":NaN}"), 400, "MALFORMED_JSON"));
        cases.add(order("duplicate field", VALID.replace("}", ",\"quantity\":2}"), 400, "MALFORMED_JSON"));
        cases.add(order("trailing garbage", VALID + " x", 400, "MALFORMED_JSON"));
        cases.add(order("array body", "[" + VALID + "]", 400, "INVALID_REQUEST"));
        cases.add(order("string body", "\"" + ITEM + "\"", 400, "INVALID_REQUEST"));
        cases.add(order("second JSON value", VALID + " {}", 400, "INVALID_REQUEST"));
        // itemCode
        cases.add(order("missing itemCode", "{\"userId\":\"u1\",\"quantity\":1}", 400, "INVALID_REQUEST"));
        cases.add(order("blank itemCode", ApiClient.orderJson("  ", "u1", 1), 400, "INVALID_REQUEST"));
        cases.add(order("itemCode of 65 characters", ApiClient.orderJson("a".repeat(65), "u1", 1), 400, "INVALID_REQUEST"));
        cases.add(order("itemCode with a hash tag", ApiClient.orderJson("a{b}", "u1", 1), 400, "INVALID_REQUEST"));
        cases.add(order("non-ASCII itemCode", ApiClient.orderJson("käse", "u1", 1), 400, "INVALID_REQUEST"));
        cases.add(order("itemCode starting with a dash", ApiClient.orderJson("-" + ITEM, "u1", 1), 400, "INVALID_REQUEST"));
        cases.add(order("numeric itemCode", "{\"itemCode\":1234,\"userId\":\"u1\",\"quantity\":1}", 400, "INVALID_REQUEST"));
        cases.add(order("object itemCode", "{\"itemCode\":{\"a\":1},\"userId\":\"u1\",\"quantity\":1}", 400, "INVALID_REQUEST"));
        // userId
        cases.add(order("missing userId", "{\"itemCode\":\"" + ITEM + "\",\"quantity\":1}", 400, "INVALID_REQUEST"));
        cases.add(order("blank userId", ApiClient.orderJson(ITEM, " ", 1), 400, "INVALID_REQUEST"));
        cases.add(order("userId of 65 characters", ApiClient.orderJson(ITEM, "u".repeat(65), 1), 400, "INVALID_REQUEST"));
        cases.add(order("numeric userId", "{\"itemCode\":\"" + ITEM + "\",\"userId\":7,\"quantity\":1}", 400, "INVALID_REQUEST"));
        cases.add(order("control character in userId", ApiClient.orderJson(ITEM, "u\\u0001", 1), 400, "INVALID_REQUEST"));
        // quantity
        cases.add(order("missing quantity", "{\"itemCode\":\"" + ITEM + "\",\"userId\":\"u1\"}", 400, "INVALID_REQUEST"));
        cases.add(order("null quantity", VALID.replace(":1}", ":null}"), 400, "INVALID_REQUEST"));
        cases.add(order("zero quantity", ApiClient.orderJson(ITEM, "u1", 0), 400, "INVALID_REQUEST"));
        cases.add(order("negative quantity", ApiClient.orderJson(ITEM, "u1", -1), 400, "INVALID_REQUEST"));
        cases.add(order("quantity above the maximum", ApiClient.orderJson(ITEM, "u1", 101), 400, "INVALID_REQUEST"));
        cases.add(order("fractional quantity", VALID.replace(":1}", ":1.5}"), 400, "INVALID_REQUEST"));
        cases.add(order("exponent quantity", VALID.replace(":1}", ":1e1}"), 400, "INVALID_REQUEST"));
        cases.add(order("quantity as text", VALID.replace(":1}", ":\"1\"}"), 400, "INVALID_REQUEST"));
        cases.add(order("boolean quantity", VALID.replace(":1}", ":true}"), 400, "INVALID_REQUEST"));
        cases.add(order("quantity over int range", VALID.replace(":1}", ":2147483648}"), 400, "INVALID_REQUEST"));
        cases.add(order("huge quantity", VALID.replace(":1}", ":99999999999999999999999}"), 400, "INVALID_REQUEST"));
        cases.add(order("unknown field", VALID.replace("}", ",\"price\":0}"), 400, "INVALID_REQUEST"));
        // Idempotency-Key
        cases.add(new Case("Idempotency-Key of 129 characters", api -> post(api, ORDER, VALID,
                "Idempotency-Key", "k".repeat(129)), 400, "INVALID_REQUEST"));
        cases.add(new Case("Idempotency-Key with a space", api -> post(api, ORDER, VALID,
                "Idempotency-Key", "a b"), 400, "INVALID_REQUEST"));
        cases.add(new Case("Idempotency-Key sent twice", api -> post(api, ORDER, VALID,
                "Idempotency-Key", "k-1", "Idempotency-Key", "k-2"), 400, "INVALID_REQUEST"));
        cases.add(new Case("Idempotency-Key sent twice with the same value", api -> post(api, ORDER, VALID,
                "Idempotency-Key", "k-1", "Idempotency-Key", "k-1"), 400, "INVALID_REQUEST"));
        // text that no store can keep as sent: a lone UTF-16 surrogate would be written as '?'
        cases.add(order("lone high surrogate in userId", ApiClient.orderJson(ITEM, "u\\ud800", 1), 400,
                "INVALID_REQUEST"));
        cases.add(order("lone low surrogate in userId", ApiClient.orderJson(ITEM, "\\udc00u", 1), 400,
                "INVALID_REQUEST"));
        cases.add(order("surrogates in the wrong order in userId", ApiClient.orderJson(ITEM, "\\udc00\\ud800", 1),
                400, "INVALID_REQUEST"));
        // size, media types, methods
        String big = ApiClient.orderJson("a".repeat(10_000), "u1", 1);
        cases.add(order("10,000-character itemCode (body over the limit)", big, 413, "BODY_TOO_LARGE"));
        cases.add(new Case("chunked body over the limit", api -> api.request(ORDER)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(
                        () -> new ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8)))), 413, "BODY_TOO_LARGE"));
        cases.add(new Case("text/plain", api -> api.request(ORDER).header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(VALID)), 415, "UNSUPPORTED_MEDIA_TYPE"));
        cases.add(new Case("form encoded", api -> api.request(ORDER)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("itemCode=" + ITEM + "&userId=u1&quantity=1")),
                415, "UNSUPPORTED_MEDIA_TYPE"));
        cases.add(new Case("multipart form", api -> api.request(ORDER)
                .header("Content-Type", "multipart/form-data; boundary=" + BOUNDARY)
                .POST(HttpRequest.BodyPublishers.ofString(multipart(VALID))), 415, "UNSUPPORTED_MEDIA_TYPE"));
        cases.add(new Case("form encoded PUT", api -> api.request(ORDER)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .PUT(HttpRequest.BodyPublishers.ofString("itemCode=" + ITEM + "&userId=u1&quantity=1")),
                405, "METHOD_NOT_ALLOWED"));
        cases.add(new Case("no content type", api -> api.request(ORDER)
                .POST(HttpRequest.BodyPublishers.ofString(VALID)), 415, "UNSUPPORTED_MEDIA_TYPE"));
        cases.add(new Case("GET", api -> api.request(ORDER).GET(), 405, "METHOD_NOT_ALLOWED"));
        cases.add(new Case("PUT", api -> api.request(ORDER).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(VALID)), 405, "METHOD_NOT_ALLOWED"));
        cases.add(new Case("Accept text/html", api -> post(api, ORDER, VALID, "Accept", "text/html"),
                406, "NOT_ACCEPTABLE"));
        cases.add(new Case("unknown path", api -> post(api, "/order/stock/unlimited", VALID), 404, "NOT_FOUND"));
        // the DB-lock endpoint binds and checks the same body
        cases.add(dbLock("db-lock: truncated JSON", "{\"itemCode\":\"" + ITEM + "\",", 400, "MALFORMED_JSON"));
        cases.add(dbLock("db-lock: missing userId", "{\"itemCode\":\"" + ITEM + "\",\"quantity\":1}", 400,
                "INVALID_REQUEST"));
        cases.add(dbLock("db-lock: zero quantity", ApiClient.orderJson(ITEM, "u1", 0), 400, "INVALID_REQUEST"));
        cases.add(dbLock("db-lock: quantity as text", VALID.replace(":1}", ":\"1\"}"), 400, "INVALID_REQUEST"));
        cases.add(dbLock("db-lock: unknown field", VALID.replace("}", ",\"gate\":\"redis\"}"), 400,
                "INVALID_REQUEST"));
        cases.add(new Case("db-lock: Idempotency-Key with a space", api -> post(api, DB_LOCK_ORDER, VALID,
                "Idempotency-Key", "a b"), 400, "INVALID_REQUEST"));
        cases.add(new Case("db-lock: text/plain", api -> api.request(DB_LOCK_ORDER).header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(VALID)), 415, "UNSUPPORTED_MEDIA_TYPE"));
        cases.add(new Case("db-lock: GET", api -> api.request(DB_LOCK_ORDER).GET(), 405, "METHOD_NOT_ALLOWED"));
        cases.add(new Case("db-lock: Idempotency-Key sent twice", api -> post(api, DB_LOCK_ORDER, VALID,
                "Idempotency-Key", "k-1", "Idempotency-Key", "k-2"), 400, "INVALID_REQUEST"));
        cases.add(dbLock("db-lock: lone surrogate in userId", ApiClient.orderJson(ITEM, "\\ud800", 1), 400,
                "INVALID_REQUEST"));
        cases.add(new Case("db-lock: multipart form", api -> api.request(DB_LOCK_ORDER)
                .header("Content-Type", "multipart/form-data; boundary=" + BOUNDARY)
                .POST(HttpRequest.BodyPublishers.ofString(multipart(VALID))), 415, "UNSUPPORTED_MEDIA_TYPE"));
        // admin
        cases.add(admin("reset without token", null, "{\"quantity\":1,\"perUserLimit\":null}", 401, "ADMIN_UNAUTHORIZED"));
        cases.add(admin("reset with a wrong token", "Bearer nope", "{\"quantity\":1,\"perUserLimit\":null}",
                401, "ADMIN_UNAUTHORIZED"));
        cases.add(admin("reset with basic auth", "Basic " + TOKEN, "{\"quantity\":1,\"perUserLimit\":null}",
                401, "ADMIN_UNAUTHORIZED"));
        cases.add(admin("negative stock", ADMIN, "{\"quantity\":-1,\"perUserLimit\":null}", 400, "INVALID_REQUEST"));
        cases.add(admin("missing stock quantity", ADMIN, "{\"perUserLimit\":2}", 400, "INVALID_REQUEST"));
        cases.add(admin("zero per-user limit", ADMIN, "{\"quantity\":5,\"perUserLimit\":0}", 400, "INVALID_REQUEST"));
        cases.add(admin("malformed stock body", ADMIN, "{\"quantity\":", 400, "MALFORMED_JSON"));
        cases.add(admin("stock field of the wrong type", ADMIN, "{\"quantity\":\"many\"}", 400, "INVALID_REQUEST"));
        cases.add(admin("unknown gate", ADMIN, "{\"quantity\":5,\"gate\":\"mysql\"}", 400, "INVALID_REQUEST"));
        cases.add(admin("gate in capitals", ADMIN, "{\"quantity\":5,\"gate\":\"DB-LOCK\"}", 400, "INVALID_REQUEST"));
        cases.add(admin("numeric gate", ADMIN, "{\"quantity\":5,\"gate\":1}", 400, "INVALID_REQUEST"));
        cases.add(new Case("multipart stock reset", api -> api.request(STOCK, "Authorization", ADMIN)
                .header("Content-Type", "multipart/form-data; boundary=" + BOUNDARY)
                .PUT(HttpRequest.BodyPublishers.ofString(multipart("{\"quantity\":1}"))), 415, "UNSUPPORTED_MEDIA_TYPE"));
        cases.add(new Case("form encoded stock reset over the body limit", api -> api.request(STOCK,
                "Authorization", ADMIN).header("Content-Type", "application/x-www-form-urlencoded")
                .PUT(HttpRequest.BodyPublishers.ofString("quantity=1&pad=" + "x".repeat(5_000))),
                415, "UNSUPPORTED_MEDIA_TYPE"));
        cases.add(new Case("non-ASCII itemCode on the reconciliation", api -> api.request(
                "/admin/reconciliation?itemCode=k%C3%A4se", "Authorization", ADMIN).GET(), 400, "INVALID_REQUEST"));
        cases.add(new Case("itemCode with a hash tag on the reconciliation", api -> api.request(
                "/admin/reconciliation?itemCode=a%7Bb%7D", "Authorization", ADMIN).GET(), 400, "INVALID_REQUEST"));
        cases.add(new Case("invalid item code in the admin path", api -> api.request("/admin/items/a%7Bb%7D/stock",
                "Authorization", ADMIN).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"quantity\":1,\"perUserLimit\":null}")), 400, "INVALID_REQUEST"));
        return cases;
    }

    private static Case order(String name, String body, int status, String code) {
        return new Case(name, api -> post(api, ORDER, body), status, code);
    }

    private static Case dbLock(String name, String body, int status, String code) {
        return new Case(name, api -> post(api, DB_LOCK_ORDER, body), status, code);
    }

    private static Case admin(String name, String authorization, String body, int status, String code) {
        return new Case(name, api -> {
            var request = api.request(STOCK).header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(body));
            return authorization == null ? request : request.header("Authorization", authorization);
        }, status, code);
    }

    /** A multipart/form-data body with one part holding {@code content}. */
    private static String multipart(String content) {
        return "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"order\"\r\n"
                + "Content-Type: application/json\r\n\r\n" + content + "\r\n--" + BOUNDARY + "--\r\n";
    }

    private static HttpRequest.Builder post(ApiClient api, String path, String body, String... headers) {
        return api.request(path, headers).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    @BeforeEach
    void stockOnce() {
        if (redisCounter(ITEM) == null) {
            setStock(ITEM, STOCK_UNITS, null);
        }
    }

    /** Refused before it reached its gate, an order is counted once, as its endpoint's gate's rejected order. */
    @Test
    void aBadOrderIsCountedAsRejectedByItsEndpointsGate() {
        double redisBefore = rejected("redis");
        double dbLockBefore = rejected("db-lock");

        assertThat(api().send(post(api(), ORDER, "hello")).status()).isEqualTo(400);
        assertThat(api().send(post(api(), DB_LOCK_ORDER, ApiClient.orderJson(ITEM, "u1", 0))).status()).isEqualTo(400);

        assertThat(rejected("redis") - redisBefore).isEqualTo(1);
        assertThat(rejected("db-lock") - dbLockBefore).isEqualTo(1);
    }

    private double rejected(String gate) {
        return meters.get("flashstock.orders").tags("gate", gate, "outcome", "rejected").counter().count();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void isRefusedWithItsProblemAndChangesNothing(Case badRequest) {
        var answer = api().send(badRequest.request().apply(api()));

        assertThat(answer.status()).as("%s", answer).isEqualTo(badRequest.status());
        assertThat(answer.contentType()).isEqualTo("application/problem+json");
        assertThat(answer.code()).isEqualTo(badRequest.code());
        assertThat(answer.json().path("status").asInt()).isEqualTo(badRequest.status());
        assertThat(answer.json().path("detail").asString()).isNotBlank();

        assertThat(redisCounter(ITEM)).isEqualTo(STOCK_UNITS);
        assertThat(redis.opsForValue().get(StockKeys.generation(ITEM))).isEqualTo("1");
        assertThat(redis.hasKey(StockKeys.limit(ITEM))).isFalse();
        assertThat(jdbc.sql("SELECT COUNT(*) FROM purchase_order").query(Long.class).single()).isZero();
        assertThat(jdbc.sql("SELECT COUNT(*) FROM outbox_event").query(Long.class).single()).isEqualTo(1);
        assertThat(jdbc.sql("SELECT generation FROM stock_item WHERE item_code = ?").param(ITEM)
                .query(Long.class).single()).isEqualTo(1);
    }

    /**
     * Tomcat parses a multipart body when asked for its parts, and spools every part to disk as it reads it;
     * Spring's multipart resolver used to ask before any handler ran. The body here is declared far longer
     * than sent, so a server that parses it waits for the rest with a part spooled, and one that does not
     * answers at once.
     */
    @Test
    void aMultipartBodyIsRefusedWithoutBeingParsedOrSpooledToDisk() throws IOException {
        Path spool = ((File) context.getServletContext().getAttribute(ServletContext.TEMPDIR)).toPath();
        String part = "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n" + "x".repeat(16_384);

        try (var client = new PartialRequest(port, "POST", ORDER, "multipart/form-data; boundary=" + BOUNDARY,
                1_000_000, part)) {
            await("an answer, or a spooled part").atMost(ANSWERED)
                    .until(() -> client.answerStarted() || !filesUnder(spool).isEmpty());

            assertThat(filesUnder(spool)).as("files spooled under %s", spool).isEmpty();
            String answer = client.answer();
            assertThat(answer).startsWith("HTTP/1.1 415").contains("application/problem+json")
                    .contains("\"code\":\"UNSUPPORTED_MEDIA_TYPE\"");
        }
        assertThat(redisCounter(ITEM)).isEqualTo(STOCK_UNITS);
        assertThat(jdbc.sql("SELECT COUNT(*) FROM purchase_order").query(Long.class).single()).isZero();
    }

    /** Nothing reads a form body (getParameter) before the handler refuses its media type. */
    @Test
    void aFormBodyIsRefusedBeforeItIsRead() throws IOException {
        try (var client = new PartialRequest(port, "POST", ORDER, "application/x-www-form-urlencoded", 100_000,
                "itemCode=" + ITEM + "&userId=u1&quantity=1&pad=")) {
            await("an answer before the body is complete").atMost(ANSWERED).until(client::answerStarted);

            assertThat(client.answer()).startsWith("HTTP/1.1 415").contains("\"code\":\"UNSUPPORTED_MEDIA_TYPE\"");
        }
        assertThat(redisCounter(ITEM)).isEqualTo(STOCK_UNITS);
        assertThat(jdbc.sql("SELECT COUNT(*) FROM purchase_order").query(Long.class).single()).isZero();
    }

    private static List<Path> filesUnder(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (var files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }

    /** A request whose head declares {@code contentLength} bytes of body, of which only {@code bodyStart} is sent. */
    private static final class PartialRequest implements AutoCloseable {

        private final Socket socket;

        PartialRequest(int port, String method, String path, String contentType, int contentLength, String bodyStart)
                throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout((int) ANSWERED.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write((method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: " + contentType
                    + "\r\nContent-Length: " + contentLength + "\r\n\r\n" + bodyStart)
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }

        boolean answerStarted() throws IOException {
            return socket.getInputStream().available() > 0;
        }

        /** The answer: the rest of the body is never sent, and the server closes once it sees the end of input. */
        String answer() throws IOException {
            socket.shutdownOutput();
            var answer = new StringBuilder();
            byte[] buffer = new byte[4096];
            try {
                for (int n; (n = socket.getInputStream().read(buffer)) >= 0; ) {
                    answer.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
                }
            } catch (SocketException resetAfterTheAnswer) {
                if (answer.isEmpty()) {
                    throw resetAfterTheAnswer;
                }
            }
            return answer.toString();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
