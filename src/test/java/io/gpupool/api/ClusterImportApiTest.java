package io.gpupool.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.clustersync.Samples;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code POST /api/v1/clusters/{id}/import}: whole clusters from Kubernetes and Slurm, on H2 and PostgreSQL. */
@MicronautTest(transactional = false)
@DatabaseTest
class ClusterImportApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(client);
    }

    /** A NodeList of GPU nodes: each {@code name:count:product[:state]}, state cordoned or notready. */
    private static String nodeList(String... nodes) {
        List<String> items = new ArrayList<>();
        for (String spec : nodes) {
            String[] p = spec.split(":");
            boolean cordoned = p.length > 3 && p[3].equals("cordoned");
            String ready = p.length > 3 && p[3].equals("notready") ? "False" : "True";
            items.add("""
                    {"kind": "Node", "metadata": {"name": "%s", "labels": {"nvidia.com/gpu.product": "%s",
                      "nvidia.com/gpu.count": "%s", "nvidia.com/gpu.memory": "81559", "topology.kubernetes.io/zone": "fra-1a"}},
                     "spec": {"unschedulable": %s},
                     "status": {"capacity": {"nvidia.com/gpu": "%s"}, "allocatable": {"nvidia.com/gpu": "%s"},
                       "conditions": [{"type": "Ready", "status": "%s"}]}}""".formatted(p[0], p[2], p[1], cordoned, p[1], p[1], ready));
        }
        return "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [" + String.join(",", items) + "]}";
    }

    private Reply importK8s(String cluster, String document, String extra) {
        return api.postText("/api/v1/clusters/" + cluster + "/import?format=k8s" + extra, document, "application/json", ADMIN);
    }

    private JsonNode cluster(String id) {
        for (JsonNode c : api.get("/api/v1/clusters", ADMIN).body()) {
            if (c.get("id").asText().equals(id)) {
                return c;
            }
        }
        return null;
    }

    private JsonNode devices(String query) {
        return api.get("/api/v1/devices?size=1000&" + query, ADMIN).body().get("items");
    }

    private List<String> inventoryReasons() {
        List<String> reasons = new ArrayList<>();
        for (JsonNode d : api.get("/api/v1/decisions?since=2000-01-01T00:00:00Z&size=1000", ADMIN).body()) {
            if ("INVENTORY".equals(d.path("action").asText())) {
                reasons.add(d.get("reasonCode").asText());
            }
        }
        return reasons;
    }

    @Test
    void aKubernetesNodeListBecomesAClusterWithItsDevicesMigInstancesAndHealth() {
        Reply r = api.postText("/api/v1/clusters/fra-k8s/import?format=k8s&site=fra-dc",
                Samples.read("k8s-node-gfd/written-from-docs__nodelist-dgx-a100.yaml"), "application/yaml", ADMIN);

        assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
        assertThat(r.body().get("clusterCreated").asBoolean()).isTrue();
        assertThat(r.body().get("nodes").get("added").asInt()).isEqualTo(5);
        assertThat(r.body().get("gpus").get("added").asInt()).isEqualTo(34);
        assertThat(r.body().get("migInstances").asInt()).isEqualTo(56);
        assertThat(r.body().get("skipped").get(0).get("node").asText()).isEqualTo("cpu-01");

        JsonNode c = cluster("fra-k8s");
        assertThat(c.get("siteId").asText()).isEqualTo("fra-dc");
        assertThat(c.get("nodes").asInt()).isEqualTo(5);
        assertThat(c.get("gpus").asInt()).isEqualTo(34);
        assertThat(c.get("migInstances").asInt()).isEqualTo(56);
        JsonNode sync = c.get("sync");
        assertThat(sync.get("source").asText()).isEqualTo("k8s");
        assertThat(sync.get("state").asText()).isEqualTo("OK");
        assertThat(sync.get("ageSeconds").asLong()).isBetween(0L, 60L);
        assertThat(sync.get("skippedNodes").asInt()).isEqualTo(1);

        JsonNode dgx = devices("node=dgx-a100-01");
        assertThat(dgx).hasSize(8).allSatisfy(d -> {
            assertThat(d.get("model").asText()).isEqualTo("A100-SXM-40G");
            assertThat(d.get("health").asText()).isEqualTo("HEALTHY");
        });
        assertThat(devices("node=dgx-a100-02")).hasSize(8).allSatisfy(d -> {
            assertThat(d.get("shareMode").asText()).isEqualTo("MIG");
            assertThat(d.get("migLayout")).hasSize(7);
        });
        assertThat(devices("node=dgx-a100-03")).allSatisfy(d -> assertThat(d.get("health").asText()).isEqualTo("DRAINING"));
        assertThat(devices("node=l4-infer-01")).allSatisfy(d -> assertThat(d.get("health").asText()).isEqualTo("UNHEALTHY"));
        assertThat(api.get("/api/v1/nodes/dgx-a100-01", ADMIN).body().get("labels").get("zone").asText()).isEqualTo("fra-1a");
    }

    @Test
    void reImportingAChangedNodeListAddsChangesAndRetiresNodesAndLogsEachChange() {
        assertThat(importK8s("sync-k8s", nodeList("sync-a:8:NVIDIA-H100-80GB-HBM3", "sync-b:8:NVIDIA-H100-80GB-HBM3",
                "sync-c:4:NVIDIA-H100-80GB-HBM3"), "").status()).isEqualTo(200);
        int before = inventoryReasons().size();

        Reply r = importK8s("sync-k8s", nodeList("sync-a:8:NVIDIA-H100-80GB-HBM3:cordoned", "sync-b:6:NVIDIA-H100-80GB-HBM3",
                "sync-d:2:NVIDIA-H100-80GB-HBM3"), "");

        assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
        JsonNode nodes = r.body().get("nodes");
        assertThat(List.of(nodes.get("added").asInt(), nodes.get("changed").asInt(), nodes.get("retired").asInt()))
                .containsExactly(1, 2, 1);
        JsonNode gpus = r.body().get("gpus");
        assertThat(List.of(gpus.get("added").asInt(), gpus.get("changed").asInt(), gpus.get("retired").asInt()))
                .as("sync-d's 2 added; sync-a's 8 drained; sync-b's 2 and sync-c's 4 retired").containsExactly(2, 8, 6);
        assertThat(devices("node=sync-a")).allSatisfy(d -> assertThat(d.get("health").asText()).isEqualTo("DRAINING"));
        assertThat(devices("node=sync-c")).allSatisfy(d -> assertThat(d.get("health").asText()).isEqualTo("OFFLINE"));
        assertThat(devices("node=sync-b&health=OFFLINE")).hasSize(2);
        List<String> logged = inventoryReasons().subList(before, inventoryReasons().size());
        assertThat(logged).contains("NODE_ADDED", "DEVICE_ADDED", "DEVICE_CHANGED", "DEVICE_VANISHED", "NODE_RETIRED");

        // The source owns the health it set: uncordoned, the node is schedulable again.
        Reply back = importK8s("sync-k8s", nodeList("sync-a:8:NVIDIA-H100-80GB-HBM3", "sync-b:6:NVIDIA-H100-80GB-HBM3",
                "sync-d:2:NVIDIA-H100-80GB-HBM3"), "");
        assertThat(back.body().get("gpus").get("changed").asInt()).isEqualTo(8);
        assertThat(devices("node=sync-a")).allSatisfy(d -> assertThat(d.get("health").asText()).isEqualTo("HEALTHY"));
    }

    @Test
    void theSameNodeListImportedTwiceChangesNothingTheSecondTime() {
        String doc = nodeList("same-a:8:NVIDIA-H100-80GB-HBM3", "same-b:2:NVIDIA-H100-80GB-HBM3:notready");
        assertThat(importK8s("same-k8s", doc, "").status()).isEqualTo(200);
        int before = inventoryReasons().size();

        Reply again = importK8s("same-k8s", doc, "");

        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body().get("changes")).isEmpty();
        assertThat(again.body().get("nodes").get("unchanged").asInt()).isEqualTo(2);
        assertThat(again.body().get("gpus").get("unchanged").asInt()).isEqualTo(10);
        assertThat(inventoryReasons()).hasSize(before);
    }

    @Test
    void aDryRunReportsWhatAnImportWouldDoAndChangesNothing() {
        Reply r = importK8s("dry-k8s", nodeList("dry-a:8:NVIDIA-H100-80GB-HBM3"), "&dryRun=true");

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body().get("dryRun").asBoolean()).isTrue();
        assertThat(r.body().get("gpus").get("added").asInt()).isEqualTo(8);
        assertThat(cluster("dry-k8s")).isNull();
        assertThat(api.get("/api/v1/nodes/dry-a", ADMIN).status()).isEqualTo(404);
    }

    @Test
    void aBrokenDocumentIsRefusedWithItsPlaceAndNothingIsApplied() {
        String whole = nodeList("bad-a:8:NVIDIA-H100-80GB-HBM3");
        Reply truncated = importK8s("bad-k8s", whole.substring(0, whole.length() - 40), "");
        assertThat(truncated.status()).isEqualTo(400);
        assertThat(truncated.contentType()).startsWith("application/problem+json");
        assertThat(truncated.detail()).contains("not valid JSON").containsPattern("line \\d+, column \\d+");

        Reply negative = importK8s("bad-k8s", whole.replace("\"nvidia.com/gpu\": \"8\"", "\"nvidia.com/gpu\": \"-8\""), "");
        assertThat(negative.status()).isEqualTo(400);
        assertThat(negative.body().get("errors").get(0).asText())
                .isEqualTo("items[0] (node bad-a).status.capacity[\"nvidia.com/gpu\"]: a count must be >= 0, was -8");

        Reply units = importK8s("bad-k8s", whole.replace("\"81559\"", "\"80GB\""), "");
        assertThat(units.status()).isEqualTo(400);
        assertThat(units.detail()).contains("unknown unit 'GB'");

        assertThat(api.postText("/api/v1/clusters/bad-k8s/import?format=csv", whole, "application/json", ADMIN).detail())
                .contains("format: one of [k8s, slurm]");
        assertThat(cluster("bad-k8s")).isNull();
        assertThat(api.get("/api/v1/nodes/bad-a", ADMIN).status()).isEqualTo(404);
    }

    @Test
    void aNodeNameOfAnotherClusterIsRefusedAndNothingOfTheImportIsApplied() {
        assertThat(importK8s("one-k8s", nodeList("shared-name:2:NVIDIA-H100-80GB-HBM3"), "").status()).isEqualTo(200);

        Reply r = importK8s("two-k8s", nodeList("fresh-node:2:NVIDIA-H100-80GB-HBM3", "shared-name:2:NVIDIA-H100-80GB-HBM3"), "");

        assertThat(r.status()).isEqualTo(409);
        assertThat(r.detail()).contains("shared-name").contains("another cluster");
        assertThat(cluster("two-k8s")).isNull();
        assertThat(api.get("/api/v1/nodes/fresh-node", ADMIN).status()).isEqualTo(404);
    }

    @Test
    void aSlurmNodeDumpBecomesAClusterWithTypedGresMigInstancesDrainAndFeatures() {
        Reply r = api.postText("/api/v1/clusters/hpc-slurm/import?format=slurm",
                Samples.read("slurm/written-from-docs__scontrol-show-node.txt"), "text/plain", ADMIN);

        assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
        assertThat(r.body().get("nodes").get("added").asInt()).isEqualTo(4);
        assertThat(r.body().get("skipped").get(0).get("node").asText()).isEqualTo("login-01");
        JsonNode c = cluster("hpc-slurm");
        assertThat(c.get("sync").get("source").asText()).isEqualTo("slurm");
        assertThat(c.get("gpus").asInt()).isEqualTo(8 + 8 + 2 + 4);
        assertThat(devices("node=gpu-a100-01")).hasSize(8).allSatisfy(d -> {
            assertThat(d.get("model").asText()).isEqualTo("A100-SXM-80G");
            assertThat(d.get("health").asText()).isEqualTo("HEALTHY");
        });
        assertThat(devices("node=gpu-a100-02")).allSatisfy(d -> assertThat(d.get("health").asText()).isEqualTo("DRAINING"));
        assertThat(devices("node=gpu-t4-01")).as("DOWN*: down and not responding")
                .allSatisfy(d -> assertThat(d.get("health").asText()).isEqualTo("UNHEALTHY"));
        JsonNode mig = devices("node=gpu-mig-01");
        assertThat(mig).hasSize(2);
        assertThat(mig.get(1).get("migLayout").toString()).isEqualTo("[\"3g.20gb\",\"3g.20gb\"]");
        JsonNode labels = api.get("/api/v1/nodes/gpu-a100-01", ADMIN).body().get("labels");
        assertThat(labels.get("nvlink").asText()).isEqualTo("true");
        assertThat(labels.get("slurm.partitions").asText()).isEqualTo("training,debug");
        assertThat(labels.get("slurm.gres-used").asText()).isEqualTo("gpu:a100:2(IDX:0-1)");
    }

    @Test
    void aSlurmNodesNewGpusJoinThePoolNamedLikeItsFirstPartitionWhenThatPoolExists() {
        assertThat(api.post("/api/v1/pools", java.util.Map.of("id", "inference", "name", "Inference", "tier", "ELASTIC"), ADMIN)
                .status()).isIn(200, 201);
        String dump = """
                NodeName=inf-l40s-01 Gres=gpu:l40s:4(S:0) State=IDLE Partitions=inference,debug
                NodeName=dbg-l40s-01 Gres=gpu:l40s:2(S:0) State=IDLE Partitions=debug
                """;

        Reply r = api.postText("/api/v1/clusters/hints-slurm/import?format=slurm", dump, "text/plain", ADMIN);

        assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
        assertThat(devices("node=inf-l40s-01")).hasSize(4).allSatisfy(d -> {
            assertThat(d.get("poolId").asText()).isEqualTo("inference");
            assertThat(d.get("model").asText()).isEqualTo("L40S-PCIE-48G");
        });
        assertThat(devices("node=dbg-l40s-01")).allSatisfy(d -> assertThat(d.get("poolId").isNull())
                .as("no pool named debug: unassigned").isTrue());
    }

    @Test
    void onlyAnAdminMayImport() {
        Reply token = api.post("/api/v1/tokens", java.util.Map.of("name", "viewer-" + System.nanoTime(), "role", "viewer"), ADMIN);
        String viewer = token.body().get("secret").asText();
        Reply r = api.postText("/api/v1/clusters/tenant-k8s/import?format=k8s", nodeList("t-a:1:NVIDIA-H100-80GB-HBM3"),
                "application/json", viewer);

        assertThat(r.status()).isEqualTo(403);
        assertThat(cluster("tenant-k8s")).isNull();
    }
}
