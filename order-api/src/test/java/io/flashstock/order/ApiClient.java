package io.flashstock.order;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A plain HTTP/1.1 client for the service under test, so requests go through Tomcat like a real client's. */
public final class ApiClient {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    public ApiClient(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    public Answer order(String itemCode, String userId, int quantity, String... headers) {
        return post("/order/stock/limit", orderJson(itemCode, userId, quantity), headers);
    }

    public static String orderJson(String itemCode, String userId, int quantity) {
        return "{\"itemCode\":\"" + itemCode + "\",\"userId\":\"" + userId + "\",\"quantity\":" + quantity + "}";
    }

    public Answer post(String path, String json, String... headers) {
        return send(request(path, headers).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    public Answer put(String path, String json, String... headers) {
        return send(request(path, headers).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)));
    }

    public Answer get(String path, String... headers) {
        return send(request(path, headers).GET());
    }

    public HttpRequest.Builder request(String path, String... headers) {
        var builder = HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT);
        if (headers.length > 0) {
            builder.headers(headers);
        }
        return builder;
    }

    public Answer send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.headers(), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A response: status, headers and the body as JSON (missing node when the body is empty). */
    public record Answer(int status, HttpHeaders headers, String text) {

        public JsonNode json() {
            return text == null || text.isEmpty() ? JSON.missingNode() : JSON.readTree(text);
        }

        public String contentType() {
            return headers.firstValue("Content-Type").orElse("");
        }

        /** The problem's {@code code}, or null for a non-problem answer. */
        public String code() {
            JsonNode code = json().path("code");
            return code.isMissingNode() ? null : code.asString();
        }

        @Override
        public String toString() {
            return status + " " + text;
        }
    }
}
