package io.gpupool.clustersync;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.sun.net.httpserver.HttpServer;
import io.gpupool.testing.Api;
import io.gpupool.testing.DatabaseTest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scheduled sync from a Kubernetes API server, through fabric8's client and a real kubeconfig.
 * No API server runs here: a small HTTP server in the test answers {@code GET /api/v1/nodes} with
 * the NodeList written from the docs (as JSON, the way an API server answers) and checks the
 * kubeconfig's bearer token. It is not a Kubernetes API server; it answers the one call a sync makes.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KubernetesApiSyncTest implements TestPropertyProvider {
    private static final String TOKEN = "sync-test-token-42";
    private final AtomicReference<String> answer = new AtomicReference<>();
    private final AtomicInteger status = new AtomicInteger(200);
    private final AtomicReference<String> authorization = new AtomicReference<>();
    private HttpServer apiServer;

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    KubernetesApiSync sync;
    Api api;

    @Override
    public Map<String, String> getProperties() {
        try {
            JsonNode list = new ObjectMapper(new YAMLFactory())
                    .readTree(Samples.read("k8s-node-gfd/written-from-docs__nodelist-dgx-a100.yaml"));
            ((com.fasterxml.jackson.databind.node.ObjectNode) list).put("kind", "NodeList");
            answer.set(new ObjectMapper().writeValueAsString(list));
            apiServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            apiServer.createContext("/api/v1/nodes", ex -> {
                authorization.set(ex.getRequestHeaders().getFirst("Authorization"));
                byte[] body = (status.get() == 200 ? answer.get()
                        : "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"etcdserver: request timed out\",\"code\":"
                        + status.get() + "}").getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().add("Content-Type", "application/json");
                ex.sendResponseHeaders(status.get(), body.length);
                try (OutputStream out = ex.getResponseBody()) {
                    out.write(body);
                }
            });
            apiServer.start();
            Path kubeconfig = Files.createTempFile("gpupool-kubeconfig", ".yaml");
            Files.writeString(kubeconfig, """
                    apiVersion: v1
                    kind: Config
                    clusters:
                    - name: fra
                      cluster: {server: "http://127.0.0.1:%d"}
                    users:
                    - name: gpupool-reader
                      user: {token: %s}
                    contexts:
                    - name: fra-reader
                      context: {cluster: fra, user: gpupool-reader}
                    current-context: fra-reader
                    """.formatted(apiServer.getAddress().getPort(), TOKEN));
            return Map.of("gpupool.sync.kubernetes.fra-api.kubeconfig", kubeconfig.toString(),
                    "gpupool.sync.kubernetes.fra-api.site", "fra-dc",
                    "gpupool.sync.kubernetes-initial-delay", "1h");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterAll
    void stop() {
        if (apiServer != null) {
            apiServer.stop(0);
        }
    }

    @BeforeEach
    void setUp() {
        api = new Api(client);
        status.set(200);
    }

    private JsonNode cluster() {
        for (JsonNode c : api.get("/api/v1/clusters", ADMIN).body()) {
            if (c.get("id").asText().equals("fra-api")) {
                return c;
            }
        }
        return null;
    }

    @Test
    void aSyncListsTheNodesWithTheKubeconfigsTokenAndAFailedOneKeepsTheLastGoodState() {
        List<String> first = sync.syncAll();

        assertThat(first).containsExactly("fra-api: 5 node(s) added, 0 changed, 0 retired");
        assertThat(authorization.get()).isEqualTo("Bearer " + TOKEN);
        JsonNode c = cluster();
        assertThat(c.get("siteId").asText()).isEqualTo("fra-dc");
        assertThat(c.get("gpusInService").asInt()).isEqualTo(34);
        assertThat(c.get("sync").get("source").asText()).isEqualTo("k8s-api");
        assertThat(c.get("sync").get("state").asText()).isEqualTo("OK");
        String lastGood = c.get("sync").get("lastSyncAt").asText();

        status.set(503);
        List<String> failed = sync.syncAll();

        assertThat(failed.get(0)).startsWith("fra-api: failed:");
        JsonNode after = cluster();
        assertThat(after.get("gpusInService").asInt()).as("the last good state stays").isEqualTo(34);
        assertThat(after.get("sync").get("state").asText()).isEqualTo("FAILING");
        assertThat(after.get("sync").get("lastSyncAt").asText()).isEqualTo(lastGood);
        assertThat(after.get("sync").get("error").asText()).contains("503");

        status.set(200);
        assertThat(sync.syncAll()).containsExactly("fra-api: 0 node(s) added, 0 changed, 0 retired");
        assertThat(cluster().get("sync").get("state").asText()).isEqualTo("OK");
        assertThat(cluster().get("sync").has("error")).isFalse();
    }
}
