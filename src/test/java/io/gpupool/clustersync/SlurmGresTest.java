package io.gpupool.clustersync;

import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.MigInstance;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Slurm's {@code Gres}, {@code State} and the other fields of a node line, in the forms scontrol prints them. */
class SlurmGresTest {
    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

    private static NodeReport only(String line) {
        ClusterImport doc = SlurmNodes.parse(line + "\n", NOW);
        assertThat(doc.nodes()).hasSize(1);
        return doc.nodes().get(0);
    }

    @Test
    void anUntypedGresIsCardsWithoutAModelOrMemoryNamedByTheirSlot() {
        NodeReport n = only("NodeName=gpu-07 Gres=gpu:4 State=IDLE");
        assertThat(n.gpus()).extracting(Gpu::uuid)
                .containsExactly("slurm:gpu-07/gpu0", "slurm:gpu-07/gpu1", "slurm:gpu-07/gpu2", "slurm:gpu-07/gpu3");
        assertThat(n.gpus()).extracting(Gpu::index).containsExactly(0, 1, 2, 3);
        assertThat(n.gpus()).allSatisfy(g -> {
            assertThat(g.productName()).isNull();
            assertThat(g.memoryMib()).isNull();
            assertThat(g.migEnabled()).isFalse();
        });
        assertThat(n.source()).isEqualTo("slurm");
        assertThat(n.at()).isEqualTo(NOW);
    }

    @Test
    void aGresTypeWithUnderscoresIsReadAsTheCardsProductName() {
        Gpu g = only("NodeName=gpu-08 Gres=gpu:nvidia_a100-sxm4-80gb:2").gpus().get(0);
        assertThat(g.productName()).isEqualTo("nvidia a100-sxm4-80gb");
        assertThat(g.memoryMib()).isEqualTo(80L * 1024);
    }

    @Test
    void otherGresKindsAreNotCardsAndSocketListsWithCommasDoNotSplitAnEntry() {
        NodeReport n = only("NodeName=gpu-09 Gres=gpu:a100:4(S:0,1),mps:400,shard:a100:8,gpu:t4:1(S:0)");
        assertThat(n.gpus()).extracting(Gpu::productName).containsExactly("a100", "a100", "a100", "a100", "t4");
        assertThat(n.gpus()).extracting(Gpu::memoryMib).containsExactly(81920L, 81920L, 81920L, 81920L, 16384L);
    }

    @Test
    void migTypesWithAndWithoutACardPrefixGoOnCardsOfTheirOwnAfterTheWholeCards() {
        NodeReport n = only("NodeName=gpu-10 Gres=gpu:a100_3g.40gb:2,gpu:a100_1g.10gb:2,gpu:a100:1,gpu:2g.20gb:3");
        // 2×3g + 2×1g of the a100 take 8 slices: two cards; 3×2g without a card name take 6: one card
        assertThat(n.gpus()).extracting(Gpu::migEnabled).containsExactly(false, true, true, true);
        assertThat(n.gpus()).extracting(Gpu::productName).containsExactly("a100", "a100", "a100", null);
        assertThat(n.gpus().get(1).migInstances()).extracting(MigInstance::profile).containsExactly("3g.40gb", "1g.10gb");
        assertThat(n.gpus().get(2).migInstances()).extracting(MigInstance::profile).containsExactly("3g.40gb", "1g.10gb");
        assertThat(n.gpus().get(3).migInstances()).extracting(MigInstance::profile)
                .containsExactly("2g.20gb", "2g.20gb", "2g.20gb");
        assertThat(n.gpus().get(3).migInstances()).extracting(MigInstance::memoryMib).containsOnly(20480L);
        assertThat(n.gpus()).extracting(Gpu::uuid)
                .containsExactly("slurm:gpu-10/gpu0", "slurm:gpu-10/gpu1", "slurm:gpu-10/gpu2", "slurm:gpu-10/gpu3");
        assertThat(n.gpus().get(3).memoryMib()).isNull();
    }

    @Test
    void aNodesStateGivesEveryCardItsHealthAndIsKeptAsALabel() {
        NodeReport n = only("NodeName=gpu-11 Gres=gpu:a100:2 State=IDLE+DRAIN Reason=bad psu [root@2026-11-30T10:00:00]");
        assertThat(n.gpus()).allSatisfy(g -> assertThat(g.health().state()).isEqualTo("DRAINING"));
        assertThat(n.labels()).containsEntry("slurm.state", "IDLE+DRAIN");
        assertThat(only("NodeName=gpu-12 Gres=gpu:a100:1 State=DOWN*").gpus().get(0).health().state()).isEqualTo("UNHEALTHY");
        assertThat(only("NodeName=gpu-13 Gres=gpu:a100:1 State=IDLE").gpus().get(0).health()).isNull();
        assertThat(only("NodeName=gpu-14 Gres=gpu:a100:1").gpus().get(0).health()).isNull();
    }

    @Test
    void valuesWithSpacesRunToTheNextKey() {
        Map<String, String> f = SlurmNodes.fields("NodeName=n1 OS=Linux 6.8.0-45-generic #45-Ubuntu SMP Reason=disk full [slurm@x] "
                + "CfgTRES=cpu=192,mem=1T Gres=gpu:8 x.y=1");
        assertThat(f).containsEntry("NodeName", "n1").containsEntry("OS", "Linux 6.8.0-45-generic #45-Ubuntu SMP")
                .containsEntry("Reason", "disk full [slurm@x]").containsEntry("Gres", "gpu:8").containsEntry("x.y", "1");
        assertThat(f).containsEntry("CfgTRES", "cpu=192,mem=1T");
        assertThat(SlurmNodes.fields("no keys here")).isEmpty();
    }

    @Test
    void nullPartitionsFeaturesAndGresUsedAddNoLabelAndNoPoolHint() {
        ClusterImport doc = SlurmNodes.parse("NodeName=gpu-15 Gres=gpu:a100:1 AvailableFeatures=(null) Partitions=(null) "
                + "GresUsed=gpu:a100:0(IDX:N/A)\nNodeName=gpu-16 Gres=gpu:a100:1 GresUsed=(null) Partitions=a,,b\n", NOW);
        assertThat(doc.nodes().get(0).labels()).containsOnlyKeys("slurm.gres-used");
        assertThat(doc.nodes().get(1).labels()).containsOnlyKeys("slurm.partitions").containsEntry("slurm.partitions", "a,b");
        assertThat(doc.poolHints()).isEqualTo(Map.of("gpu-16", List.of("a", "b")));
    }

    @Test
    void aNodeWhoseGresHoldsNoCardIsSkippedSayingWhatItHas() {
        ClusterImport doc = SlurmNodes.parse("NodeName=cpu-01 Gres=(null)\nNodeName=cpu-02 Gres=mps:100\n"
                + "NodeName=cpu-03\nNodeName=gpu-17 Gres=gpu:a100:0\n", NOW);
        assertThat(doc.nodes()).isEmpty();
        assertThat(doc.skipped()).extracting(ClusterImport.SkippedNode::reason)
                .containsExactly("no GPU in Gres ((null))", "no GPU in Gres (mps:100)", "no GPU in Gres ((null))", "no GPU in Gres (gpu:a100:0)");
    }

    @Test
    void windowsLineEndingsAndBlankLinesAreRead() {
        ClusterImport doc = SlurmNodes.parse("NodeName=a Gres=gpu:1\r\n\r\nNodeName=b Gres=gpu:2\r\n", NOW);
        assertThat(doc.nodes()).extracting(NodeReport::node).containsExactly("a", "b");
        assertThat(doc.gpus()).isEqualTo(3);
    }

    @Test
    void aDocumentWithoutNodesIsRefused() {
        assertThatThrownBy(() -> SlurmNodes.parse("\n\n", NOW)).isInstanceOfSatisfying(ImportFormatException.class,
                e -> assertThat(e.problems()).containsExactly("document: no node in it (scontrol show node -o)"));
    }

    @Test
    void aGresEntryThatIsNotNameTypeCountIsRefusedNamingItsNode() {
        assertThatThrownBy(() -> SlurmNodes.parse("NodeName=n1 Gres=gpu\nNodeName=n2 Gres=gpu:a100:many\n", NOW))
                .isInstanceOfSatisfying(ImportFormatException.class, e -> assertThat(e.problems()).containsExactly(
                        "line 1 (node n1): Gres 'gpu' is not name[:type]:count",
                        "line 2 (node n2): Gres 'gpu:a100:many': the count is not a whole number"));
    }

    @Test
    void aContinuationLineBeforeAnyNodeIsAStrayLine() {
        assertThatThrownBy(() -> SlurmNodes.parse("   CPUAlloc=0\nNodeName=n1 Gres=gpu:1\n", NOW))
                .isInstanceOfSatisfying(ImportFormatException.class, e -> assertThat(e.problems())
                        .containsExactly("line 1: expected a node (NodeName=…), was 'CPUAlloc=0'"));
    }
}
