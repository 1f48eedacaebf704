package io.gpupool.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.gpupool.testing.Api;
import io.gpupool.testing.FleetLoaded;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpRequest;
import io.micronaut.http.client.BlockingHttpClient;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fuzzing pass over the served spec, with an admin token on the shipped fleet: every operation
 * gets malformed path and query values (overlong, huge, invalid UTF-8, negative) and, when it takes
 * a body, that body with each top-level field broken in turn (overlong text, lone surrogate, wrong
 * type, one-element array, negative and huge numbers, null) and whole bodies of the wrong shape.
 * Every answer is below 500, every refusal at most 8 KB, and a body with an overlong text, a lone
 * surrogate or a one-element array for a scalar is never accepted.
 */
@MicronautTest(transactional = false)
class SpecFuzzApiTest {
    private static final int MAX_ANSWER = 8 * 1024;
    private static final String SURROGATE_MARK = "@@lone-surrogate@@";
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** Ids the shipped fleet has, so that a broken field is checked past the lookups of the others. */
    private static final Map<String, String> KNOWN = Map.of("tenant", "nlp", "tenantId", "nlp", "pool", "training",
            "parent", "research", "kind", "training", "role", "viewer", "tier", "DEV_SHARED", "gpus", "1");

    @Inject
    @Client("/")
    HttpClient client;
    JsonNode spec;
    ObjectMapper json = new ObjectMapper();
    final List<String> failures = new ArrayList<>();
    int sent;

    private record Mutation(String name, JsonNode value) {
    }

    @Test
    void aFuzzingPassOverTheSpecFindsNoServerErrorAndNoHugeAnswer() throws Exception {
        Api api = new Api(client);
        FleetLoaded.ensure(api);
        spec = new ObjectMapper(new YAMLFactory()).readTree(client.toBlocking().retrieve(HttpRequest.GET("/swagger/gpupool-v1.yml")));
        long start = System.nanoTime();

        for (Iterator<Map.Entry<String, JsonNode>> paths = spec.get("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                Map.Entry<String, JsonNode> op = ops.next();
                fuzz(HttpMethod.valueOf(op.getKey().toUpperCase()), path.getKey(), op.getValue());
            }
        }

        long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        assertThat(sent).as("requests sent").isGreaterThan(500);
        assertThat(failures).as(sent + " requests in " + seconds + " s").isEmpty();
    }

    private void fuzz(HttpMethod method, String template, JsonNode op) {
        List<String> pathParams = new ArrayList<>();
        List<String> queryParams = new ArrayList<>();
        for (JsonNode p : op.path("parameters")) {
            ("path".equals(p.path("in").asText()) ? pathParams : "query".equals(p.path("in").asText()) ? queryParams : new ArrayList<String>())
                    .add(p.path("name").asText());
        }
        JsonNode bodySchema = op.at("/requestBody/content/application~1json/schema");
        String baseBody = bodySchema.isMissingNode() ? null : write(sample(bodySchema, "", 0));
        List<String> badValues = List.of("x".repeat(300), "9".repeat(40), "-1", "%ED%A0%80", "%00%0A", "..%2F..", "%F0%9F%98%80x");
        for (String bad : badValues) {
            for (String param : pathParams) {
                send(method, fill(template, pathParams, param, bad), baseBody);
            }
            for (String param : queryParams) {
                send(method, fill(template, pathParams, null, null) + "?" + param + "=" + bad, baseBody);
            }
        }
        send(method, fill(template, pathParams, null, null) + "?" + "x".repeat(3000) + "=1", baseBody);
        if (bodySchema.isMissingNode()) {
            return;
        }
        String url = fill(template, pathParams, null, null);
        for (String whole : List.of("[]", "\"x\"", "null", "42", "{", "{\"a\":", "[{}]", "{}", "{\"" + "k".repeat(5000) + "\":1}")) {
            send(method, url, whole);
        }
        JsonNode base = sample(bodySchema, "", 0);
        if (base instanceof ObjectNode object) {
            List<String> fields = new ArrayList<>();
            object.fieldNames().forEachRemaining(fields::add);
            for (String field : fields) {
                for (Mutation m : mutations(object.get(field))) {
                    ObjectNode broken = object.deepCopy();
                    broken.set(field, m.value());
                    boolean mustRefuse = m.name().equals("overlong") || m.name().equals("lone surrogate")
                            || m.name().equals("one-element array") && !object.get(field).isContainerNode();
                    send(method, url, write(broken), mustRefuse ? field + ": " + m.name() : null);
                }
            }
        }
    }

    private List<Mutation> mutations(JsonNode valid) {
        List<Mutation> all = new ArrayList<>(List.of(
                new Mutation("overlong", NODES.textNode("y".repeat(100_000))),
                new Mutation("lone surrogate", NODES.textNode(SURROGATE_MARK)),
                new Mutation("object", NODES.objectNode().put("a", 1)),
                new Mutation("negative", NODES.numberNode(-1)),
                new Mutation("huge", NODES.numberNode(new java.math.BigInteger("9".repeat(30)))),
                new Mutation("fraction", NODES.numberNode(0.5)),
                new Mutation("null", NODES.nullNode()),
                new Mutation("true", NODES.booleanNode(true))));
        all.add(new Mutation("one-element array", NODES.arrayNode().add(valid)));
        if (valid.isArray()) {
            ArrayNode many = NODES.arrayNode();
            for (int i = 0; i < 5000; i++) {
                many.add("z" + i);
            }
            all.add(new Mutation("many", many));
            all.add(new Mutation("surrogate element", NODES.arrayNode().add(SURROGATE_MARK)));
        }
        return all;
    }

    /** A body that follows the schema, with ids of the shipped fleet where a name suggests one. */
    private JsonNode sample(JsonNode schema, String name, int depth) {
        if (schema.has("$ref")) {
            schema = spec.at(schema.get("$ref").asText().substring(1));
        }
        if (schema.has("allOf")) {
            return sample(schema.get("allOf").get(0), name, depth);
        }
        if (schema.has("enum")) {
            return NODES.textNode(KNOWN.getOrDefault(name, schema.get("enum").get(0).asText()));
        }
        String type = schema.path("type").asText("object");
        return switch (type) {
            case "string" -> NODES.textNode(KNOWN.getOrDefault(name, "x"));
            case "integer", "number" -> NODES.numberNode(Integer.parseInt(KNOWN.getOrDefault(name, "1")));
            case "boolean" -> NODES.booleanNode(name.equals("overcommit")); // past the over-commit refusal
            case "array" -> depth > 2 ? NODES.arrayNode() : NODES.arrayNode().add(sample(schema.path("items"), name, depth + 1));
            default -> {
                ObjectNode object = NODES.objectNode();
                if (depth <= 2) {
                    schema.path("properties").fields().forEachRemaining(p -> object.set(p.getKey(), sample(p.getValue(), p.getKey(), depth + 1)));
                }
                yield object;
            }
        };
    }

    private String write(JsonNode body) {
        try {
            return json.writeValueAsString(body).replace(SURROGATE_MARK, "\\ud800x");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String fill(String template, List<String> params, String broken, String bad) {
        String url = template;
        for (String p : params) {
            url = url.replace("{" + p + "}", p.equals(broken) ? bad : URLEncoder.encode("nlp", StandardCharsets.UTF_8));
        }
        return url;
    }

    private void send(HttpMethod method, String url, String body) {
        send(method, url, body, null);
    }

    /** Sends one request; {@code mustRefuse} names the broken field when a 2xx would be a failure. */
    private void send(HttpMethod method, String url, String body, String mustRefuse) {
        MutableHttpRequest<?> request = HttpRequest.create(method, url).bearerAuth(Api.ADMIN);
        if (body != null && method != HttpMethod.GET && method != HttpMethod.DELETE) {
            request.body(body).contentType(MediaType.APPLICATION_JSON_TYPE);
        }
        sent++;
        BlockingHttpClient http = client.toBlocking();
        int status;
        String answer;
        try {
            HttpResponse<String> response = http.exchange(request, String.class);
            status = response.code();
            answer = response.getBody().orElse("");
        } catch (HttpClientResponseException e) {
            status = e.getStatus().getCode();
            answer = e.getResponse().getBody(String.class).orElse("");
        } catch (RuntimeException e) {
            failures.add(method + " " + cut(url) + " " + cut(body) + ": " + e);
            return;
        }
        if (status >= 500 || status >= 400 && answer.length() > MAX_ANSWER || mustRefuse != null && status < 300) {
            failures.add(status + " (" + answer.length() + " chars" + (mustRefuse == null ? "" : "; " + mustRefuse) + ") for " + method + " " + cut(url) + " " + cut(body) + " -> "
                    + cut(answer));
        }
    }

    private static String cut(String text) {
        return text == null ? "" : text.length() <= 160 ? text : text.substring(0, 160) + "…(" + text.length() + ")";
    }
}
