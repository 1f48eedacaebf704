package io.gpupool.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every operation the OpenAPI spec lists asks who calls before it does anything: without a token
 * it is a 401 problem, with a token of a role it is not for a 403 problem naming the role, and
 * neither changes what an admin then reads. A route added without its roles fails here.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EveryRouteAsksWhoCallsApiTest {
    /** The only operations an agent token may call. */
    private static final Set<String> AGENT_MAY = Set.of("POST /api/v1/agent/reports", "GET /api/v1/tokens/me");
    /** The writes a viewer may make: asking for and cancelling a policy replay (docs/api.md). */
    private static final Set<String> VIEWER_MAY_WRITE = Set.of("POST /api/v1/policies/replay", "DELETE /api/v1/policies/replay/{id}");

    @Inject
    @Client("/")
    HttpClient client;
    Api api;
    String agent;
    String viewer;
    List<String[]> operations;

    @BeforeAll
    void readTheSpec() throws Exception {
        api = new Api(client);
        SmallFleet.load(api);
        agent = api.post("/api/v1/tokens", Map.of("name", "rack-agent", "role", "agent", "nodes", List.of("h100-a")), ADMIN)
                .body().get("secret").asText();
        viewer = api.post("/api/v1/tokens", Map.of("name", "auditor", "role", "viewer"), ADMIN).body().get("secret").asText();
        JsonNode spec = new ObjectMapper(new YAMLFactory()).readTree(client.toBlocking().retrieve(HttpRequest.GET("/swagger/gpupool-v1.yml")));
        operations = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> paths = spec.get("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            if (!path.getKey().startsWith("/api/")) {
                continue;
            }
            for (Iterator<String> methods = path.getValue().fieldNames(); methods.hasNext(); ) {
                operations.add(new String[] {methods.next().toUpperCase(), path.getKey()});
            }
        }
        assertThat(operations).as("operations in the spec").hasSizeGreaterThan(60);
    }

    private Reply call(String method, String template, String token) {
        String url = template.replaceAll("\\{[^}]+}", "x1");
        HttpMethod m = HttpMethod.valueOf(method);
        var request = HttpRequest.create(m, url);
        if (m == HttpMethod.POST || m == HttpMethod.PUT) {
            request.body("{}").contentType(MediaType.APPLICATION_JSON_TYPE);
        }
        return api.send(request, token);
    }

    /** What an admin reads of everything a refused call could have changed (tokens by id: their use is recorded). */
    private String state() {
        return String.join("\n", List.of("/api/v1/tenants", "/api/v1/pools", "/api/v1/quotas", "/api/v1/leases",
                "/api/v1/queues", "/api/v1/policies", "/api/v1/prices", "/api/v1/webhooks", "/api/v1/sites")
                .stream().map(p -> api.get(p, ADMIN).body().toString()).toList())
                + api.get("/api/v1/tokens", ADMIN).body().findValuesAsText("id");
    }

    @Test
    void everyOperationWithoutATokenIsUnauthorizedAndChangesNothing() {
        String before = state();
        List<String> open = new ArrayList<>();

        for (String[] op : operations) {
            Reply reply = call(op[0], op[1], null);
            if (reply.status() != 401 || !reply.contentType().startsWith("application/problem+json")) {
                open.add(op[0] + " " + op[1] + " → " + reply.status());
            }
        }

        assertThat(open).as("operations that did not ask for a token").isEmpty();
        assertThat(state()).isEqualTo(before);
    }

    @Test
    void anAgentTokenReachesOnlyItsReportAndItsOwnNameAndChangesNothingElse() {
        String before = state();
        List<String> reached = new ArrayList<>();

        for (String[] op : operations) {
            String name = op[0] + " " + op[1];
            if (AGENT_MAY.contains(name)) {
                continue;
            }
            Reply reply = call(op[0], op[1], agent);
            if (reply.status() != 403 || !reply.detail().contains("Role 'agent' may not call this endpoint")) {
                reached.add(name + " → " + reply.status() + " " + reply.detail());
            }
        }

        assertThat(reached).as("operations an agent token reached").isEmpty();
        assertThat(state()).isEqualTo(before);
    }

    @Test
    void aViewerTokenChangesNothingAnywhere() {
        String before = state();
        List<String> wrote = new ArrayList<>();

        for (String[] op : operations) {
            String name = op[0] + " " + op[1];
            if (op[0].equals("GET") || VIEWER_MAY_WRITE.contains(name)) {
                continue;
            }
            Reply reply = call(op[0], op[1], viewer);
            if (reply.status() != 403) {
                wrote.add(name + " → " + reply.status() + " " + reply.detail());
            }
        }

        assertThat(wrote).as("writes a viewer got past the role check").isEmpty();
        assertThat(state()).isEqualTo(before);
    }

    @Test
    void anUnknownTokenIsUnauthorizedOnEveryOperationAndNamesNoToken() {
        List<String> open = new ArrayList<>();

        for (String[] op : operations) {
            Reply reply = call(op[0], op[1], "gpt_made-up-secret-that-was-never-issued");
            if (reply.status() != 401) {
                open.add(op[0] + " " + op[1] + " → " + reply.status());
            }
        }

        assertThat(open).isEmpty();
    }
}
