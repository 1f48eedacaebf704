package io.gpupool.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A thread-safe JSON client for load tests (java.net.http): many threads share one instance, and a
 * call never throws for an HTTP error status, only for a broken connection. Used against the
 * in-process test server and against a child JVM, where the Micronaut test client is not available.
 */
public final class HttpJson {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final URI base;
    private final String token;

    public HttpJson(URI base, String token) {
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        this.base = base;
        this.token = token;
    }

    public Api.Reply get(String path) {
        return join(send(builder(path).GET()));
    }

    public Api.Reply post(String path, Object body) {
        return join(postAsync(path, body, null));
    }

    public Api.Reply post(String path, Object body, String idempotencyKey) {
        return join(postAsync(path, body, idempotencyKey));
    }

    public CompletableFuture<Api.Reply> postAsync(String path, Object body, String idempotencyKey) {
        HttpRequest.Builder b = builder(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(write(body)));
        if (idempotencyKey != null) {
            b.header("Idempotency-Key", idempotencyKey);
        }
        return send(b);
    }

    public Api.Reply delete(String path) {
        return join(send(builder(path).DELETE()));
    }

    private HttpRequest.Builder builder(String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token).header("Accept", "application/json, application/problem+json");
    }

    private CompletableFuture<Api.Reply> send(HttpRequest.Builder b) {
        return http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString()).thenApply(r -> new Api.Reply(r.statusCode(),
                read(r.body()), r.headers().firstValue("Content-Type").orElse("")));
    }

    private static Api.Reply join(CompletableFuture<Api.Reply> reply) {
        return reply.join();
    }

    private static String write(Object body) {
        try {
            return JSON.writeValueAsString(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode read(String text) {
        try {
            return text == null || text.isEmpty() ? JSON.nullNode() : JSON.readTree(text);
        } catch (IOException e) {
            return JSON.getNodeFactory().textNode(text);
        }
    }
}
