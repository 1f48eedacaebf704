package io.gpupool.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The service's REST API, as the CLI uses it: JSON in and out with the bearer token. An answer of
 * 4xx becomes a {@link CliFailure} with exit code 1 and the problem's {@code detail}; a 5xx or no
 * answer at all, exit code 3. Nothing here knows the server's classes: it is a client like curl.
 */
final class RestClient {
    static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final String token;
    private final Duration timeout;
    private final HttpClient http;

    RestClient(String url, String token, Duration timeout) {
        String trimmed = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        try {
            this.base = URI.create(trimmed);
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage("not a URL: " + url);
        }
        if (base.getScheme() == null || !base.getScheme().startsWith("http")) {
            throw CliFailure.usage("not an http(s) URL: " + url);
        }
        this.token = token;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    /** A status and its JSON body (missing when empty); 4xx and 5xx never come back as a Reply. */
    record Reply(int status, JsonNode body) {
    }

    JsonNode get(String path) {
        return send("GET", path, null, Map.of()).body();
    }

    /** A plain-text resource (a Prometheus scrape), without a token; 4xx and 5xx fail as for JSON. */
    String text(String path) {
        HttpRequest request = HttpRequest.newBuilder(base.resolve(base.getPath() + path)).timeout(timeout).GET().build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (response.statusCode() >= 400) {
                throw new CliFailure(CliFailure.UNREACHABLE, base + " answered " + response.statusCode());
            }
            return response.body();
        } catch (IOException e) {
            throw new CliFailure(CliFailure.UNREACHABLE, "cannot reach " + base + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(CliFailure.UNREACHABLE, "interrupted while reading " + base);
        }
    }

    /** A file as it is served (a CSV, a chart), with the token; 4xx and 5xx fail as for JSON. */
    byte[] bytes(String path) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(base.getPath() + path)).timeout(timeout).GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try {
            HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() >= 400) {
                throw new CliFailure(response.statusCode() >= 500 ? CliFailure.UNREACHABLE : CliFailure.REFUSED,
                        base + path + " answered " + response.statusCode(), response.statusCode());
            }
            return response.body();
        } catch (IOException e) {
            throw new CliFailure(CliFailure.UNREACHABLE, "cannot reach " + base + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(CliFailure.UNREACHABLE, "interrupted while reading " + base);
        }
    }

    JsonNode delete(String path) {
        return send("DELETE", path, null, Map.of()).body();
    }

    JsonNode post(String path, Object body) {
        return send("POST", path, body, Map.of()).body();
    }

    /** A document posted as it is ({@code contentType}: its type), not as JSON of an object. */
    JsonNode postDocument(String path, String document, String contentType) {
        return send("POST", path, new Document(document, contentType), Map.of()).body();
    }

    private record Document(String text, String contentType) {
    }

    Reply send(String method, String path, Object body, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(base.getPath() + path)).timeout(timeout)
                .header("Accept", "application/json, application/problem+json");
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        headers.forEach(request::header);
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else if (body instanceof Document d) {
            request.header("Content-Type", d.contentType()).method(method, HttpRequest.BodyPublishers.ofString(d.text()));
        } else {
            request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(write(body)));
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new CliFailure(CliFailure.UNREACHABLE, "cannot reach " + base + ": "
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()) + " (is the server running?)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(CliFailure.UNREACHABLE, "interrupted while calling " + base);
        }
        JsonNode json = parse(response.body());
        int status = response.statusCode();
        if (status >= 400) {
            String detail = json.path("detail").asText(json.path("message").asText(""));
            String title = json.path("title").asText("HTTP " + status);
            String text = detail.isEmpty() ? title : detail;
            throw new CliFailure(status >= 500 ? CliFailure.UNREACHABLE : CliFailure.REFUSED,
                    (status >= 500 ? "server error " + status + ": " : status + " " + title + ": ") + text, status);
        }
        return new Reply(status, json);
    }

    /** {@code path?k=v&…} from the non-null values, encoded. */
    static String query(String path, Map<String, Object> params) {
        StringBuilder sb = new StringBuilder(path);
        char sep = '?';
        for (Map.Entry<String, Object> e : params.entrySet()) {
            if (e.getValue() != null) {
                sb.append(sep).append(e.getKey()).append('=')
                        .append(URLEncoder.encode(String.valueOf(e.getValue()), StandardCharsets.UTF_8));
                sep = '&';
            }
        }
        return sb.toString();
    }

    static Map<String, Object> params(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    static String segment(String id) {
        return URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String write(Object body) {
        try {
            return JSON.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static JsonNode parse(String text) {
        if (text == null || text.isBlank()) {
            return MissingNode.getInstance();
        }
        try {
            return JSON.readTree(text);
        } catch (JsonProcessingException e) {
            return JSON.getNodeFactory().textNode(text);
        }
    }
}
