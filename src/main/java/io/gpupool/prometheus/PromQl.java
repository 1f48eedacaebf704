package io.gpupool.prometheus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Instant queries against Prometheus's HTTP API ({@code GET /api/v1/query}). An answer that is not
 * a vector, an error status or an unreachable server is a {@link PrometheusException} with the
 * reason Prometheus gave.
 */
final class PromQl {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One series of an instant vector: its labels and value at the evaluation time. */
    record Sample(Map<String, String> labels, double value) {
    }

    private final URI base;
    private final HttpClient http;
    private final Duration timeout;

    PromQl(URI base, Duration timeout) {
        this.base = base;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    URI base() {
        return base;
    }

    List<Sample> query(String promql, Instant at) {
        String path = base.getPath().replaceAll("/+$", "") + "/api/v1/query";
        URI uri = base.resolve(path + "?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8) + "&time="
                + at.getEpochSecond() + "." + String.format("%03d", at.getNano() / 1_000_000));
        HttpResponse<String> response;
        try {
            response = http.send(HttpRequest.newBuilder(uri).timeout(timeout).GET().build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new PrometheusException("cannot reach Prometheus at " + base + ": "
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PrometheusException("interrupted while querying " + base);
        }
        JsonNode body;
        try {
            body = JSON.readTree(response.body());
        } catch (IOException e) {
            throw new PrometheusException("Prometheus at " + base + " answered " + response.statusCode() + " without JSON");
        }
        if (!"success".equals(body.path("status").asText())) {
            throw new PrometheusException("Prometheus refused '" + promql + "': " + body.path("errorType").asText("error")
                    + ": " + body.path("error").asText("HTTP " + response.statusCode()));
        }
        JsonNode data = body.path("data");
        if (!"vector".equals(data.path("resultType").asText())) {
            throw new PrometheusException("'" + promql + "' gave a " + data.path("resultType").asText() + ", not a vector");
        }
        List<Sample> out = new ArrayList<>();
        for (JsonNode r : data.path("result")) {
            Map<String, String> labels = new LinkedHashMap<>();
            r.path("metric").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
            double value;
            try {
                value = Double.parseDouble(r.path("value").path(1).asText());
            } catch (NumberFormatException e) {
                continue; // a value Prometheus could not give as a number is no measurement
            }
            out.add(new Sample(labels, value));
        }
        return out;
    }
}
