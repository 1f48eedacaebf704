package io.gpupool.clustersync;

import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.MigInstance;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Kubernetes NodeLists read into node reports: GFD's captured label maps and a NodeList written from the docs. */
class KubernetesNodeListTest {
    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
    private final KubernetesNodeList reader = new KubernetesNodeList(
            KubernetesLabels.of("zone=topology.kubernetes.io/zone,region=topology.kubernetes.io/region", "example.com/rack",
                    "nvidia.com/gpu"));

    private static NodeReport node(ClusterImport doc, String name) {
        return doc.nodes().stream().filter(n -> n.node().equals(name)).findFirst().orElseThrow();
    }

    private static String health(Gpu g) {
        return g.health() == null ? "HEALTHY" : g.health().state();
    }

    @Test
    void theCapturedMixedStrategyH100IsOneCardWithItsMigInstancesFromTheLabels() {
        ClusterImport doc = reader.parse(Samples.nodeListWithLabels("s4124-0073",
                "k8s-node-gfd/cloud-native-docs__mig-mixed-node-labels.json"), NOW);

        NodeReport n = node(doc, "s4124-0073");
        assertThat(n.gpus()).hasSize(1);
        Gpu g = n.gpus().get(0);
        assertThat(g.productName()).isEqualTo("NVIDIA-H100-80GB-HBM3");
        assertThat(g.memoryMib()).isEqualTo(81559L);
        assertThat(g.migEnabled()).isTrue();
        assertThat(g.migInstances()).extracting(MigInstance::profile)
                .containsExactly("3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb");
        assertThat(g.migInstances()).extracting(MigInstance::memoryMib).containsExactly(40320L, 20096L, 9984L, 9984L);
        assertThat(n.labels()).containsEntry("mig.strategy", "mixed").containsEntry("gpu.family", "hopper")
                .containsEntry("gpu.machine", "PIO-4124GS-TNR-01-NC24B");
        assertThat(n.driverVersion()).isEqualTo("550.54.15");
        assertThat(doc.migInstances()).isEqualTo(4);
    }

    @Test
    void theCapturedSingleStrategyNodeWithMigDisabledIsOneWholeH100() {
        ClusterImport doc = reader.parse(Samples.nodeListWithLabels("s4124-0073",
                "k8s-node-gfd/cloud-native-docs__mig-node-labels.json"), NOW);

        Gpu g = node(doc, "s4124-0073").gpus().get(0);
        assertThat(node(doc, "s4124-0073").gpus()).hasSize(1);
        assertThat(g.migEnabled()).isFalse();
        assertThat(g.migInstances()).isEmpty();
        assertThat(g.uuid()).isEqualTo("k8s:s4124-0073/gpu0");
        assertThat(health(g)).isEqualTo("HEALTHY");
    }

    @Test
    void aDgxNodeBecomesEightA100sWithItsZoneRegionAndRackAndTheGpuOnlyTaintDoesNotDrainIt() {
        ClusterImport doc = reader.parse(Samples.read("k8s-node-gfd/written-from-docs__nodelist-dgx-a100.yaml"), NOW);

        NodeReport n = node(doc, "dgx-a100-01");
        assertThat(n.gpus()).hasSize(8).allSatisfy(g -> {
            assertThat(g.productName()).isEqualTo("A100-SXM4-40GB");
            assertThat(g.memoryMib()).isEqualTo(39538L);
            assertThat(health(g)).isEqualTo("HEALTHY");
        });
        assertThat(n.labels()).containsEntry("zone", "fra-1a").containsEntry("region", "eu-central")
                .containsEntry("gpu.machine", "NVIDIA DGX-2H").doesNotContainKey("k8s.drain");
        assertThat(n.rack()).isEqualTo("r12");
        assertThat(n.driverVersion()).isEqualTo("455.06");
    }

    @Test
    void theSingleStrategyMigProductIsSplitIntoCardsOfSevenOneSliceInstances() {
        ClusterImport doc = reader.parse(Samples.read("k8s-node-gfd/written-from-docs__nodelist-dgx-a100.yaml"), NOW);

        NodeReport n = node(doc, "dgx-a100-02");
        assertThat(n.gpus()).hasSize(8).allSatisfy(g -> {
            assertThat(g.productName()).isEqualTo("A100-SXM4-40GB");
            assertThat(g.migEnabled()).isTrue();
            assertThat(g.migInstances()).hasSize(7).allSatisfy(m -> {
                assertThat(m.profile()).isEqualTo("1g.5gb");
                assertThat(m.memoryMib()).isEqualTo(5120L);
            });
        });
    }

    @Test
    void aCordonedNodeDrainsAndANotReadyNodeIsUnhealthyAndACardHeldBackFromAllocatableIsUnhealthy() {
        ClusterImport doc = reader.parse(Samples.read("k8s-node-gfd/written-from-docs__nodelist-dgx-a100.yaml"), NOW);

        assertThat(node(doc, "dgx-a100-03").gpus()).allSatisfy(g -> assertThat(health(g)).isEqualTo("DRAINING"));
        assertThat(node(doc, "dgx-a100-03").labels()).containsEntry("k8s.drain", "cordoned");
        assertThat(node(doc, "dgx-a100-04").gpus()).extracting(KubernetesNodeListTest::health)
                .containsExactly("HEALTHY", "HEALTHY", "HEALTHY", "HEALTHY", "HEALTHY", "HEALTHY", "HEALTHY", "UNHEALTHY");
        NodeReport notReady = node(doc, "l4-infer-01"); // no GFD count or memory: capacity and the catalog
        assertThat(notReady.gpus()).hasSize(2).allSatisfy(g -> {
            assertThat(health(g)).isEqualTo("UNHEALTHY");
            assertThat(g.productName()).isEqualTo("NVIDIA-L4");
            assertThat(g.memoryMib()).isEqualTo(24L * 1024);
        });
        assertThat(notReady.labels()).containsEntry("k8s.drain", "dedicated:NoExecute");
    }

    @Test
    void aNodeWithoutGpusIsSkippedAndCounted() {
        ClusterImport doc = reader.parse(Samples.read("k8s-node-gfd/written-from-docs__nodelist-dgx-a100.yaml"), NOW);

        assertThat(doc.nodes()).extracting(NodeReport::node)
                .containsExactly("dgx-a100-01", "dgx-a100-02", "dgx-a100-03", "dgx-a100-04", "l4-infer-01");
        assertThat(doc.skipped()).extracting(ClusterImport.SkippedNode::node).containsExactly("cpu-01");
        assertThat(doc.gpus()).isEqualTo(8 + 8 + 8 + 8 + 2);
    }

    @Test
    void mixedStrategyMigCapacityOfTheDevicePluginAloneIsReadWhenGfdLabelsAreMissing() {
        String list = """
                {"kind": "NodeList", "items": [{"kind": "Node", "metadata": {"name": "h100-mig-01"},
                  "status": {"capacity": {"nvidia.com/gpu": "1", "nvidia.com/mig-3g.40gb": "4", "nvidia.com/mig-1g.10gb": "7"}}}]}""";

        NodeReport n = node(reader.parse(list, NOW), "h100-mig-01");

        assertThat(n.gpus()).hasSize(4);
        assertThat(n.gpus()).filteredOn(Gpu::migEnabled).hasSize(3);
        assertThat(n.gpus().stream().flatMap(g -> g.migInstances().stream()).map(MigInstance::profile).toList())
                .containsExactlyInAnyOrder("3g.40gb", "3g.40gb", "3g.40gb", "3g.40gb", "1g.10gb", "1g.10gb", "1g.10gb",
                        "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb");
    }

    @Test
    void aTruncatedDocumentIsRefusedWithTheLineAndColumn() {
        String list = Samples.nodeListWithLabels("s4124-0073", "k8s-node-gfd/cloud-native-docs__mig-node-labels.json");

        assertThatThrownBy(() -> reader.parse(list.substring(0, list.length() / 2), NOW))
                .isInstanceOf(ImportFormatException.class)
                .hasMessageContaining("not valid JSON").hasMessageMatching(".*line \\d+, column \\d+.*");
    }

    @Test
    void unknownUnitsAndNegativeCountsAreEachNamedWithTheirNode() {
        String list = """
                apiVersion: v1
                kind: List
                items:
                - kind: Node
                  metadata:
                    name: gpu-01
                    labels: {nvidia.com/gpu.count: "8", nvidia.com/gpu.memory: "80GB", nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
                - kind: Node
                  metadata: {name: gpu-02}
                  status:
                    capacity: {nvidia.com/gpu: "-2"}
                """;

        assertThatThrownBy(() -> reader.parse(list, NOW)).isInstanceOfSatisfying(ImportFormatException.class, e ->
                assertThat(e.problems()).containsExactly(
                        "items[0] (node gpu-01).metadata.labels[\"nvidia.com/gpu.memory\"]: unknown unit 'GB' (GPU Feature "
                                + "Discovery writes MiB as a plain number; Mi, MiB, Gi, GiB are read too), was '80GB'",
                        "items[1] (node gpu-02).status.capacity[\"nvidia.com/gpu\"]: a count must be >= 0, was -2"));
    }

    @Test
    void aDocumentThatIsNotANodeListIsRefused() {
        assertThatThrownBy(() -> reader.parse("{\"kind\": \"PodList\", \"items\": []}", NOW))
                .isInstanceOfSatisfying(ImportFormatException.class, e -> assertThat(e.problems())
                        .containsExactly("kind: expected NodeList, List or Node (kubectl get nodes -o json), was 'PodList'"));
        assertThat(List.of()).isEmpty();
    }
}
