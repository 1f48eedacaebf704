package io.gpupool.clustersync;

import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.MigInstance;
import io.gpupool.domain.inventory.DeviceHealth;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code scontrol show node -o} read into node reports, on a dump written in its format. */
class SlurmNodesTest {
    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
    private static final ClusterImport DUMP = SlurmNodes.parse(Samples.read("slurm/written-from-docs__scontrol-show-node.txt"), NOW);

    private static NodeReport node(ClusterImport doc, String name) {
        return doc.nodes().stream().filter(n -> n.node().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void typedGresBecomesCardsOfTheCatalogsModelWithFeaturesPartitionsAndGresUsedAsLabels() {
        NodeReport n = node(DUMP, "gpu-a100-01");

        assertThat(n.gpus()).hasSize(8).allSatisfy(g -> {
            assertThat(g.productName()).isEqualTo("a100");
            assertThat(g.memoryMib()).isEqualTo(80L * 1024);
            assertThat(g.health()).isNull();
        });
        assertThat(n.labels()).containsEntry("nvlink", "true").containsEntry("ib", "true")
                .containsEntry("slurm.partitions", "training,debug").containsEntry("slurm.gres-used", "gpu:a100:2(IDX:0-1)")
                .containsEntry("slurm.state", "MIXED");
        assertThat(DUMP.poolHints()).containsEntry("gpu-a100-01", java.util.List.of("training", "debug"));
    }

    @Test
    void aMigTypeInGresBecomesInstancesOnACardBesideTheWholeOne() {
        NodeReport n = node(DUMP, "gpu-mig-01");

        assertThat(n.gpus()).extracting(Gpu::migEnabled).containsExactly(false, true);
        assertThat(n.gpus().get(1).migInstances()).extracting(MigInstance::profile).containsExactly("3g.20gb", "3g.20gb");
        assertThat(n.gpus().get(1).migInstances()).extracting(MigInstance::memoryMib).containsExactly(20480L, 20480L);
    }

    @Test
    void aLoginNodeWithoutGresIsSkippedAndCounted() {
        assertThat(DUMP.skipped()).extracting(ClusterImport.SkippedNode::node).containsExactly("login-01");
        assertThat(DUMP.nodes()).hasSize(4);
    }

    @ParameterizedTest(name = "State={0} is {1}")
    @CsvSource({"IDLE, HEALTHY", "MIXED, HEALTHY", "ALLOCATED, HEALTHY", "IDLE+DRAIN, DRAINING", "MIXED+DRAIN, DRAINING",
            "DRAINED, DRAINING", "MAINT+RESERVED, DRAINING", "DOWN, UNHEALTHY", "DOWN*, UNHEALTHY", "IDLE*, UNKNOWN",
            "DOWN+DRAIN, UNHEALTHY", "FAIL, UNHEALTHY", "IDLE+CLOUD+POWERED_DOWN, DRAINING", "UNKNOWN, UNKNOWN"})
    void eachNodeStateHasItsHealth(String state, DeviceHealth health) {
        assertThat(SlurmNodes.health(state)).isEqualTo(health);
    }

    @Test
    void theMultiLineFormWithoutDashOIsReadToo() {
        ClusterImport doc = SlurmNodes.parse("""
                NodeName=gpu-h100-01 Arch=x86_64 CoresPerSocket=48
                   CPUAlloc=0 CPUEfctv=192 CPUTot=192 CPULoad=0.00
                   AvailableFeatures=h100 ActiveFeatures=h100
                   Gres=gpu:h100:8(S:0-1)
                   OS=Linux 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC
                   State=IDLE ThreadsPerCore=2 TmpDisk=0 Weight=1 Owner=N/A
                   Partitions=training

                """, NOW);

        assertThat(node(doc, "gpu-h100-01").gpus()).hasSize(8).allSatisfy(g -> assertThat(g.memoryMib()).isEqualTo(80L * 1024));
    }

    @Test
    void negativeCountsUnknownUnitsAndStrayLinesAreRefusedEachWithItsLine() {
        String dump = """
                NodeName=n1 Gres=gpu:a100:-2 State=IDLE
                NodeName=n2 Gres=gpu:a100:8G State=IDLE
                this is not scontrol output
                """;

        assertThatThrownBy(() -> SlurmNodes.parse(dump, NOW)).isInstanceOfSatisfying(ImportFormatException.class, e ->
                assertThat(e.problems()).containsExactly(
                        "line 3: expected a node (NodeName=…), was 'this is not scontrol output'",
                        "line 1 (node n1): Gres 'gpu:a100:-2': a count must be >= 0, was -2",
                        "line 2 (node n2): Gres 'gpu:a100:8G': unknown unit 'G' on a GPU count"));
    }
}
