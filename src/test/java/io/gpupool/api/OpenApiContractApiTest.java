package io.gpupool.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.gpupool.testing.Api;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.web.router.Router;

import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI spec the server serves says what it does: every controller route, none of the
 * server's internal arguments, the bearer token every operation takes, and as required only the
 * body fields the server enforces. Swagger UI shows it, like the spec, without a token.
 */
@MicronautTest(transactional = false)
class OpenApiContractApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    Router router;
    Api api;
    JsonNode spec;

    @BeforeEach
    void readSpec() throws Exception {
        api = new Api(client);
        String yaml = client.toBlocking().retrieve(HttpRequest.GET("/swagger/gpupool-v1.yml"));
        spec = new ObjectMapper(new YAMLFactory()).readTree(yaml);
    }

    private List<JsonNode> operations() {
        List<JsonNode> all = new ArrayList<>();
        spec.get("paths").forEach(path -> path.forEach(all::add));
        return all;
    }

    @Test
    void everyControllerRouteIsInTheSpecAndNothingElse() {
        Set<String> routes = new TreeSet<>();
        router.uriRoutes().filter(r -> r.getUriMatchTemplate().toString().startsWith("/api/"))
                .filter(r -> r.getHttpMethod() != io.micronaut.http.HttpMethod.HEAD) // implied by each GET
                .forEach(r -> routes.add(r.getHttpMethod().name().toLowerCase() + " " + r.getUriMatchTemplate()));
        Set<String> documented = new TreeSet<>();
        spec.get("paths").fields().forEachRemaining(p -> p.getValue().fieldNames()
                .forEachRemaining(method -> documented.add(method + " " + p.getKey())));

        assertThat(routes).hasSizeGreaterThan(40);
        assertThat(documented).containsAll(routes);
        assertThat(routes).as("no documented operation the server lacks").containsAll(documented);
    }

    @Test
    void noOperationTakesTheInternalCallerParameter() {
        for (JsonNode op : operations()) {
            assertThat(op.path("parameters").findValuesAsText("name")).as(op.path("operationId").asText()).doesNotContain("caller");
            assertThat(op.path("requestBody").toString()).as(op.path("operationId").asText()).doesNotContain("\"caller\"");
        }
    }

    @Test
    void everyOperationTakesABearerToken() {
        JsonNode scheme = spec.at("/components/securitySchemes/bearer");
        assertThat(scheme.path("type").asText()).isEqualTo("http");
        assertThat(scheme.path("scheme").asText()).isEqualTo("bearer");
        assertThat(spec.path("security").get(0).has("bearer")).isTrue();
    }

    @Test
    void aRequestBodyRequiresOnlyTenantKindAndGpus() {
        assertThat(required("NewRequest")).containsExactlyInAnyOrder("tenant", "kind", "gpus");
        assertThat(required("QuotaSpec")).containsExactlyInAnyOrder("tenant", "pool");
        assertThat(required("TenantSpec")).containsExactlyInAnyOrder("id");
        assertThat(required("PoolSpec")).containsExactlyInAnyOrder("id", "tier");
    }

    private List<String> required(String schema) {
        List<String> names = new ArrayList<>();
        spec.at("/components/schemas/" + schema + "/required").forEach(n -> names.add(n.asText()));
        return names;
    }

    @Test
    void swaggerUiIsServedWithoutAToken() {
        var page = client.toBlocking().exchange(HttpRequest.GET("/swagger-ui/index.html"), String.class);

        assertThat(page.code()).isEqualTo(200);
        assertThat(page.body()).contains("swagger-ui").contains("gpupool-v1.yml");
        assertThat(client.toBlocking().exchange(HttpRequest.GET("/swagger-ui/res/swagger-ui-bundle.js"), String.class).code())
                .isEqualTo(200);
        assertThat(client.toBlocking().exchange(HttpRequest.GET("/swagger-ui/"), String.class).body()).contains("gpupool-v1.yml");
    }
}
