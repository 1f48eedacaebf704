package io.gpupool.clustersync;

import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Gpu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Kubernetes Node documents in the shapes clusters produce beyond the shipped samples: one node each, stated inline. */
class KubernetesNodeVariantsTest {
    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
    private final KubernetesNodeList reader = new KubernetesNodeList(
            KubernetesLabels.of("zone=topology.kubernetes.io/zone", null, "nvidia.com/gpu"));

    /** A single Node (kind Node, as {@code kubectl get node x -o json} prints it). */
    private NodeReport node(String labels, String status, String spec) {
        ClusterImport doc = reader.parse("""
                {"kind": "Node", "metadata": {"name": "gpu-01", "labels": {%s}}, "spec": {%s}, "status": {%s}}"""
                .formatted(labels, spec, status), NOW);
        assertThat(doc.nodes()).hasSize(1);
        return doc.nodes().get(0);
    }

    private static String health(Gpu g) {
        return g.health() == null ? "HEALTHY" : g.health().state();
    }

    @Test
    void aSingleNodeDocumentIsReadWithItsCardsNamedBySlot() {
        NodeReport n = node("\"nvidia.com/gpu.product\": \"NVIDIA-H100-80GB-HBM3\", \"nvidia.com/gpu.count\": \"2\", "
                + "\"nvidia.com/gpu.memory\": \"81559\", \"topology.kubernetes.io/zone\": \"z1\"", "", "");
        assertThat(n.node()).isEqualTo("gpu-01");
        assertThat(n.source()).isEqualTo("k8s");
        assertThat(n.at()).isEqualTo(NOW);
        assertThat(n.rack()).isNull(); // no rack label configured
        assertThat(n.labels()).containsEntry("zone", "z1").containsEntry("gpu.product", "NVIDIA-H100-80GB-HBM3");
        assertThat(n.gpus()).extracting(Gpu::uuid).containsExactly("k8s:gpu-01/gpu0", "k8s:gpu-01/gpu1");
        assertThat(n.gpus()).extracting(Gpu::memoryMib).containsOnly(81559L);
        assertThat(n.gpus()).extracting(Gpu::migEnabled).containsOnly(false);
    }

    @Test
    void withoutAMemoryLabelACardTheCatalogKnowsHasItsMemory() {
        NodeReport n = node("", "\"capacity\": {\"nvidia.com/gpu\": \"1\"}", "");
        assertThat(n.gpus().get(0).productName()).isNull();
        assertThat(n.gpus().get(0).memoryMib()).isNull(); // nothing names the card
        NodeReport t4 = node("\"nvidia.com/gpu.product\": \"Tesla-T4\"", "\"capacity\": {\"nvidia.com/gpu\": \"1\"}", "");
        assertThat(t4.gpus().get(0).memoryMib()).isEqualTo(16L * 1024);
    }

    @ParameterizedTest(name = "Ready={0}: {1}")
    @CsvSource({"True, HEALTHY", "False, UNHEALTHY", "Unknown, UNKNOWN"})
    void theReadyConditionGivesTheCardsTheirHealth(String ready, String expected) {
        NodeReport n = node("\"nvidia.com/gpu.count\": \"1\"",
                "\"conditions\": [{\"type\": \"MemoryPressure\", \"status\": \"False\"}, {\"type\": \"Ready\", \"status\": \"" + ready + "\"}]", "");
        assertThat(health(n.gpus().get(0))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"NoSchedule", "NoExecute"})
    void aTaintThatKeepsPodsAwayDrainsTheNodeAndIsNamed(String effect) {
        NodeReport n = node("\"nvidia.com/gpu.count\": \"1\"", "",
                "\"taints\": [{\"key\": \"maintenance\", \"effect\": \"" + effect + "\"}, {\"key\": \"nvidia.com/gpu\", \"effect\": \"NoSchedule\"}]");
        assertThat(health(n.gpus().get(0))).isEqualTo("DRAINING");
        assertThat(n.labels()).containsEntry("k8s.drain", "maintenance:" + effect);
    }

    @Test
    void aPreferNoScheduleTaintOrAnIgnoredOneDoesNotDrain() {
        NodeReport n = node("\"nvidia.com/gpu.count\": \"1\"", "",
                "\"taints\": [{\"key\": \"spot\", \"effect\": \"PreferNoSchedule\"}, {\"key\": \"nvidia.com/gpu\", \"effect\": \"NoExecute\"}]");
        assertThat(health(n.gpus().get(0))).isEqualTo("HEALTHY");
        assertThat(n.labels()).doesNotContainKey("k8s.drain");
    }

    @Test
    void aCordonIsNamedOnceEvenWithItsOwnTaint() {
        NodeReport n = node("\"nvidia.com/gpu.count\": \"1\"", "",
                "\"unschedulable\": true, \"taints\": [{\"key\": \"node.kubernetes.io/unschedulable\", \"effect\": \"NoSchedule\"}]");
        assertThat(n.labels()).containsEntry("k8s.drain", "cordoned");
    }

    @Test
    void aNotReadyNodeThatIsAlsoCordonedStaysUnhealthy() {
        NodeReport n = node("\"nvidia.com/gpu.count\": \"1\"", "\"conditions\": [{\"type\": \"Ready\", \"status\": \"False\"}]",
                "\"unschedulable\": true");
        assertThat(health(n.gpus().get(0))).isEqualTo("UNHEALTHY");
    }

    @Test
    void timeSlicedCapacityIsCardsTimesReplicasAndAWithheldReplicaMakesItsCardUnhealthy() {
        NodeReport n = node("\"nvidia.com/gpu.replicas\": \"4\", \"nvidia.com/gpu.sharing-strategy\": \"time-slicing\"",
                "\"capacity\": {\"nvidia.com/gpu\": \"16\"}, \"allocatable\": {\"nvidia.com/gpu\": \"13\"}", "");
        assertThat(n.gpus()).extracting(KubernetesNodeVariantsTest::health)
                .containsExactly("HEALTHY", "HEALTHY", "HEALTHY", "UNHEALTHY");
        assertThat(n.labels()).containsEntry("gpu.replicas", "4").containsEntry("gpu.sharing-strategy", "time-slicing");
    }

    @Test
    void allocatableEqualToCapacityLeavesEveryCardHealthy() {
        NodeReport n = node("", "\"capacity\": {\"nvidia.com/gpu\": \"3\"}, \"allocatable\": {\"nvidia.com/gpu\": \"3\"}", "");
        assertThat(n.gpus()).extracting(KubernetesNodeVariantsTest::health).containsOnly("HEALTHY");
        assertThat(n.gpus()).hasSize(3);
    }

    @Test
    void moreAllocatableThanCapacityIsAProblem() {
        assertThatThrownBy(() -> node("", "\"capacity\": {\"nvidia.com/gpu\": \"2\"}, \"allocatable\": {\"nvidia.com/gpu\": \"3\"}", ""))
                .isInstanceOfSatisfying(ImportFormatException.class, e -> assertThat(e.problems()).containsExactly(
                        "items[0] (node gpu-01).status.allocatable[\"nvidia.com/gpu\"]: 3 is more than the capacity 2"));
    }

    @Test
    void migInstancesThatNeedMoreCardsThanTheNodeHasAreAProblem() {
        assertThatThrownBy(() -> node("\"nvidia.com/gpu.count\": \"1\", \"nvidia.com/mig.strategy\": \"mixed\", "
                + "\"nvidia.com/mig-3g.40gb.count\": \"4\", \"nvidia.com/gpu.product\": \"NVIDIA-H100-80GB-HBM3\"", "", ""))
                .isInstanceOfSatisfying(ImportFormatException.class, e -> assertThat(e.problems()).containsExactly(
                        "items[0] (node gpu-01).metadata.labels: the MIG instances (4×3g.40gb) need 2 card(s), the node has 1"));
    }

    @Test
    void mixedStrategyKeepsTheCardsTheDevicePluginCountsWholeBesideTheMigCards() {
        NodeReport n = node("\"nvidia.com/gpu.count\": \"3\", \"nvidia.com/mig.strategy\": \"mixed\", "
                        + "\"nvidia.com/mig-1g.10gb.count\": \"7\", \"nvidia.com/mig-1g.10gb.memory\": \"9984\", "
                        + "\"nvidia.com/gpu.product\": \"NVIDIA-H100-80GB-HBM3\", \"nvidia.com/gpu.memory\": \"81559\"",
                "\"capacity\": {\"nvidia.com/gpu\": \"1\"}", "");
        // 3 cards, 1 counted whole by the device plugin: 2 are MIG, though 7×1g would fit on one
        assertThat(n.gpus()).extracting(Gpu::migEnabled).containsExactly(true, true, false);
        assertThat(n.gpus().get(0).migInstances().size() + n.gpus().get(1).migInstances().size()).isEqualTo(7);
        assertThat(n.gpus().get(0).migInstances()).allSatisfy(m -> assertThat(m.memoryMib()).isEqualTo(9984L));
    }

    @Test
    void theDriverVersionIsAssembledFromItsPartsWhenTheFullOneIsMissing() {
        assertThat(node("\"nvidia.com/gpu.count\": \"1\", \"nvidia.com/cuda.driver.major\": \"550\", "
                + "\"nvidia.com/cuda.driver.minor\": \"54\", \"nvidia.com/cuda.driver.rev\": \"15\"", "", "").driverVersion())
                .isEqualTo("550.54.15");
        assertThat(node("\"nvidia.com/gpu.count\": \"1\", \"nvidia.com/cuda.driver.major\": \"550\"", "", "").driverVersion())
                .isEqualTo("550.0");
        assertThat(node("\"nvidia.com/gpu.count\": \"1\", \"nvidia.com/cuda.driver.major\": \"550\", "
                + "\"nvidia.com/cuda.driver.minor\": \"54\", \"nvidia.com/cuda.driver.rev\": \"\"", "", "").driverVersion())
                .isEqualTo("550.54");
        assertThat(node("\"nvidia.com/gpu.count\": \"1\"", "", "").driverVersion()).isNull();
        assertThat(node("\"nvidia.com/gpu.count\": \"1\", \"nvidia.com/cuda.driver-version.full\": \"550.54.15\", "
                + "\"nvidia.com/cuda.driver.major\": \"1\", \"nvidia.com/cuda.runtime-version.full\": \"12.4.1\"", "", ""))
                .satisfies(n -> {
                    assertThat(n.driverVersion()).isEqualTo("550.54.15");
                    assertThat(n.cudaVersion()).isEqualTo("12.4.1");
                    assertThat(n.labels()).containsEntry("cuda.driver-version.full", "550.54.15");
                });
    }

    @Test
    void anEmptyLabelIsNotKeptOnTheNode() {
        NodeReport n = node("\"nvidia.com/gpu.count\": \"1\", \"nvidia.com/gpu.family\": \"\", \"nvidia.com/gpu.machine\": null", "", "");
        assertThat(n.labels()).doesNotContainKeys("gpu.family", "gpu.machine");
    }

    @Test
    void anItemThatIsNotANodeIsSkippedAndANamelessOneIsAProblem() {
        ClusterImport doc = reader.parse("{\"kind\": \"List\", \"items\": [{\"kind\": \"Pod\", \"metadata\": {\"name\": \"p\"}}]}", NOW);
        assertThat(doc.skipped()).containsExactly(new ClusterImport.SkippedNode("p", "kind Pod is not a Node"));
        assertThatThrownBy(() -> reader.parse("{\"items\": [{\"metadata\": {}}]}", NOW))
                .isInstanceOfSatisfying(ImportFormatException.class, e -> assertThat(e.problems())
                        .containsExactly("items[0].metadata.name: is required"));
    }

    @Test
    void aNodeWithABadValueIsNotAlsoCountedAsSkipped() {
        assertThatThrownBy(() -> reader.parse("{\"kind\": \"NodeList\", \"items\": [{\"metadata\": {\"name\": \"n\", "
                + "\"labels\": {\"nvidia.com/gpu.count\": \"x\"}}}]}", NOW))
                .isInstanceOfSatisfying(ImportFormatException.class, e -> assertThat(e.problems()).hasSize(1));
    }

    @ParameterizedTest(name = "''{0}''")
    @CsvSource(delimiter = '|', value = {
            "''                                  | document: is empty (kubectl get nodes -o json)",
            "'[1, 2]'                            | document: expected a NodeList object",
            "'- a'                               | document: expected a NodeList object",
            "'{\"kind\": \"NodeList\", \"items\": {}}' | items: a NodeList needs an items array",
            "'{\"kind\": \"NodeList\"}'          | items: a NodeList needs an items array",
    })
    void aDocumentThatIsNotANodeListIsRefusedSayingWhy(String text, String problem) {
        assertThatThrownBy(() -> reader.parse(text, NOW)).isInstanceOfSatisfying(ImportFormatException.class,
                e -> assertThat(e.problems()).containsExactly(problem));
    }

    @Test
    void migCountsOfZeroInTheLabelsLeaveTheDevicePluginsCapacityToNameTheInstances() {
        NodeReport n = node("\"nvidia.com/gpu.count\": \"1\", \"nvidia.com/mig-1g.10gb.count\": \"0\"",
                "\"capacity\": {\"nvidia.com/mig-2g.20gb\": \"1\", \"nvidia.com/mig-1g.5gb\": \"1\", \"nvidia.com/mig-1g.10gb\": \"1\"}", "");
        // read in name order whatever the order of the answer: 2g first (largest), then 1g.10gb before 1g.5gb
        assertThat(n.gpus().get(0).migInstances()).extracting(m -> m.profile()).containsExactly("2g.20gb", "1g.10gb", "1g.5gb");
    }

    @Test
    void configuredTopologyLabelsAndIgnoredTaintsAreTrimmedAndAMalformedPairIsRefused() {
        KubernetesLabels labels = KubernetesLabels.of(" zone = topology.kubernetes.io/zone ,, ", " ", " a , ,b ");
        assertThat(labels.topology()).containsExactly(java.util.Map.entry("zone", "topology.kubernetes.io/zone"));
        assertThat(labels.rack()).isNull();
        assertThat(labels.ignoredTaints()).containsExactlyInAnyOrder("a", "b");
        for (String bad : new String[] {"=x", "x=", "x"}) {
            assertThatThrownBy(() -> KubernetesLabels.of(bad, null, "")).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("gpupool.import.kubernetes.topology-labels: '" + bad + "' is not name=kubernetes-label");
        }
        assertThat(KubernetesLabels.of("a=b", "r", "").topology()).containsEntry("a", "b");
    }

    @Test
    void brokenYamlIsRefusedAsYaml() {
        assertThatThrownBy(() -> reader.parse("kind: NodeList\nitems: [\n", NOW)).isInstanceOfSatisfying(ImportFormatException.class,
                e -> assertThat(e.problems().get(0)).contains("not valid YAML"));
    }
}
