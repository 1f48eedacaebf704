package io.gpupool.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpRequest;
import io.micronaut.http.client.BlockingHttpClient;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.exceptions.HttpClientResponseException;

import java.io.IOException;
import java.io.UncheckedIOException;

/** A small REST test client: sends JSON with a bearer token and returns status and body, errors included. */
public final class Api {
    public static final String ADMIN = "test-admin-token-0001";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final BlockingHttpClient http;

    public Api(HttpClient client) {
        this.http = client.toBlocking();
    }

    /** An answer; {@code link} is its Link header (null when none). */
    public record Reply(int status, JsonNode body, String contentType, String link) {
        public Reply(int status, JsonNode body, String contentType) {
            this(status, body, contentType, null);
        }

        public String detail() {
            return body.path("detail").asText();
        }
    }

    public Reply get(String path, String token) {
        return send(HttpRequest.GET(path), token);
    }

    public Reply post(String path, Object body, String token) {
        return send(HttpRequest.POST(path, body), token);
    }

    /** A POST with extra headers, given as name, value, name, value, … */
    public Reply post(String path, Object body, String token, String... headers) {
        MutableHttpRequest<?> request = HttpRequest.POST(path, body);
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return send(request, token);
    }

    public Reply put(String path, Object body, String token) {
        return send(HttpRequest.PUT(path, body), token);
    }

    public Reply delete(String path, String token) {
        return send(HttpRequest.DELETE(path), token);
    }

    public Reply postText(String path, String body, String contentType, String token) {
        return send(HttpRequest.POST(path, body).contentType(contentType), token);
    }

    public Reply send(MutableHttpRequest<?> request, String token) {
        if (token != null) {
            request.bearerAuth(token);
        }
        request.accept(MediaType.APPLICATION_JSON_TYPE, MediaType.of("application/problem+json"));
        try {
            HttpResponse<String> response = http.exchange(request, String.class);
            return reply(response.code(), response.getBody().orElse(""),
                    response.getContentType().map(Object::toString).orElse(""), response.getHeaders().get("Link"));
        } catch (HttpClientResponseException e) {
            return reply(e.getStatus().getCode(), e.getResponse().getBody(String.class).orElse(""),
                    e.getResponse().getContentType().map(Object::toString).orElse(""), null);
        }
    }

    private static Reply reply(int status, String text, String contentType, String link) {
        try {
            return new Reply(status, text.isEmpty() ? JSON.nullNode() : JSON.readTree(text), contentType, link);
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + text, e);
        }
    }
}
