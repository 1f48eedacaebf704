package io.gpupool.replay;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static io.gpupool.replay.TraceFiles.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TraceReaderTest {
    @TempDir
    Path dir;

    @Test
    void nodesAndPodsAreReadByColumnName() throws Exception {
        Path nodes = TraceFiles.write(dir, "n.csv", TraceFiles.NODE_HEADER, List.of("node-1,96000,393216,8,G2"));
        Path pods = TraceFiles.write(dir, "p.csv", TraceFiles.POD_HEADER,
                List.of(pod("pod-1", 4000, 8192, 1, 470, ""), pod("pod-2", 88000, 327680, 8, 1000, "V100M16|V100M32")));

        assertThat(TraceReader.nodes(nodes)).containsExactly(new TraceNode("node-1", 96000, 393216, 8, "G2"));
        assertThat(TraceReader.pods(pods)).extracting(TracePod::name, TracePod::requestedMilli, TracePod::models)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("pod-1", 470L, java.util.Set.of()),
                        org.assertj.core.groups.Tuple.tuple("pod-2", 8000L, java.util.Set.of("V100M16", "V100M32")));
    }

    @Test
    void theFiveColumnMultiGpuListsReadWithoutAModelConstraint() throws Exception {
        Path pods = TraceFiles.write(dir, "p.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli",
                List.of("pod-1,8000,16384,4,1000"));

        assertThat(TraceReader.pods(pods).get(0).models()).isEmpty();
    }

    @Test
    void modelListsAreSplitOnBarsWithEmptiesAndDuplicatesDropped() throws Exception {
        Path pods = TraceFiles.write(dir, "p.csv", TraceFiles.POD_HEADER,
                List.of(pod("pod-1", 1000, 1024, 1, 1000, "T4||T4|P100|")));

        assertThat(TraceReader.pods(pods).get(0).models()).containsExactlyInAnyOrder("T4", "P100");
    }

    @Test
    void aMalformedRowIsReportedWithFileAndLine() throws Exception {
        Path pods = TraceFiles.write(dir, "bad.csv", TraceFiles.POD_HEADER,
                List.of(pod("pod-1", 1000, 1024, 1, 500, ""), pod("pod-2", 1000, 1024, 1, 500, "").replace(",1000,", ",lots,")));

        assertThatThrownBy(() -> TraceReader.pods(pods)).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("bad.csv:3:").hasMessageContaining("cpu_milli");
    }

    @Test
    void aRowWithMissingFieldsIsRejected() throws Exception {
        Path nodes = TraceFiles.write(dir, "n.csv", TraceFiles.NODE_HEADER, List.of("node-1,96000,393216,8"));

        assertThatThrownBy(() -> TraceReader.nodes(nodes)).hasMessageContaining("n.csv:2:").hasMessageContaining("fields");
    }

    @Test
    void aMultiGpuPodAskingForFractionsIsRejected() throws Exception {
        Path pods = TraceFiles.write(dir, "p.csv", TraceFiles.POD_HEADER, List.of(pod("pod-1", 1000, 1024, 2, 500, "")));

        assertThatThrownBy(() -> TraceReader.pods(pods)).hasMessageContaining("p.csv:2:").hasMessageContaining("whole GPUs");
    }

    @Test
    void aFileWithoutTheExpectedHeaderIsRejectedAtLineOne() throws Exception {
        Path nodes = TraceFiles.write(dir, "n.csv", "name,cpus", List.of("a,1"));

        assertThatThrownBy(() -> TraceReader.nodes(nodes)).hasMessageContaining("n.csv:1:").hasMessageContaining("sn");
    }
}
