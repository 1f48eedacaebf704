package io.gpupool.replay;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where the trace reader draws the line between a row it reads and one it refuses, and what it says. */
class TraceRefusalsTest {
    @TempDir
    Path dir;

    private Path nodes(String... rows) throws IOException {
        return TraceFiles.write(dir, "n.csv", TraceFiles.NODE_HEADER, List.of(rows));
    }

    private Path pods(String... rows) throws IOException {
        return TraceFiles.write(dir, "p.csv", TraceFiles.POD_HEADER, List.of(rows));
    }

    @Test
    void aNodeMayHoldUpToSixtyFourGpusAndNoMore() throws IOException {
        assertThat(TraceReader.nodes(nodes("big,96000,786432,64,V100M32"))).singleElement()
                .isEqualTo(new TraceNode("big", 96000, 786432, 64, "V100M32"));
        assertThatThrownBy(() -> TraceReader.nodes(nodes("huge,96000,786432,65,V100M32")))
                .isInstanceOf(TraceFormatException.class)
                .hasMessageEndingWith("n.csv:2: 'gpu' out of range [0, 64]: 65");
    }

    @Test
    void aNegativeFigureIsRefused() throws IOException {
        assertThatThrownBy(() -> TraceReader.nodes(nodes("n,-1,1024,0,")))
                .hasMessageEndingWith("n.csv:2: 'cpu_milli' out of range [0, 9223372036854775807]: -1");
    }

    @Test
    void aCpuOnlyNodeNeedsNoModelButANodeWithGpusDoes() throws IOException {
        assertThat(TraceReader.nodes(nodes("cpu-only,64000,262144,0,"))).singleElement()
                .extracting(TraceNode::gpus).isEqualTo(0);
        assertThatThrownBy(() -> TraceReader.nodes(nodes("n,64000,262144,8,nan")))
                .hasMessageEndingWith("n.csv:2: node with GPUs has no model");
        assertThatThrownBy(() -> TraceReader.nodes(nodes("n,64000,262144,1,")))
                .hasMessageEndingWith("n.csv:2: node with GPUs has no model");
    }

    @Test
    void aNodeWithoutANameIsRefused() throws IOException {
        assertThatThrownBy(() -> TraceReader.nodes(nodes(",64000,262144,0,")))
                .hasMessageEndingWith("n.csv:2: empty 'sn'");
    }

    @Test
    void aPodTakesAtMostAWholeGpuOfEachCard() throws IOException {
        assertThat(TraceReader.pods(pods(TraceFiles.pod("p", 1000, 1024, 1, 1000, "")))).singleElement()
                .extracting(TracePod::gpuMilli).isEqualTo(1000);
        assertThatThrownBy(() -> TraceReader.pods(pods(TraceFiles.pod("p", 1000, 1024, 1, 1001, ""))))
                .hasMessageEndingWith("p.csv:2: 'gpu_milli' out of range [0, 1000]: 1001");
    }

    @Test
    void aGpuPodAskingForNoShareOfItsGpuIsRefused() throws IOException {
        assertThatThrownBy(() -> TraceReader.pods(pods(TraceFiles.pod("p", 1000, 1024, 2, 0, ""))))
                .hasMessageEndingWith("p.csv:2: num_gpu=2 but gpu_milli=0");
        assertThatThrownBy(() -> TraceReader.pods(pods(TraceFiles.pod("p", 1000, 1024, 1, 0, ""))))
                .hasMessageEndingWith("p.csv:2: num_gpu=1 but gpu_milli=0");
    }

    @Test
    void aCpuOnlyPodCountsNoGpuMilliWhateverTheRowSays() throws IOException {
        TracePod pod = TraceReader.pods(pods(TraceFiles.pod("cpu", 4000, 8192, 0, 500, "nan"))).get(0);

        assertThat(pod.gpuMilli()).isZero();
        assertThat(pod.requestedMilli()).isZero();
        assertThat(pod.models()).isEmpty();
        assertThat(pod.toRequest().milliPerGpu()).isZero();
    }

    @Test
    void aMultiGpuPodOfWholeGpusRequestsTheirSum() throws IOException {
        TracePod pod = TraceReader.pods(pods(TraceFiles.pod("train", 32000, 65536, 8, 1000, "V100M16|V100M32"))).get(0);

        assertThat(pod.requestedMilli()).isEqualTo(8000);
        assertThat(pod.toRequest().gpusPerMember()).isEqualTo(8);
        assertThat(pod.toRequest().allowedModels()).isEqualTo(Set.of("V100M16", "V100M32"));
        assertThat(pod.renamed("train-2").name()).isEqualTo("train-2");
        assertThat(pod.renamed("train-2").requestedMilli()).isEqualTo(8000);
    }

    @Test
    void quotedCellsWindowsLineEndsAndBlankLinesAreRead() throws IOException {
        Path file = Files.writeString(dir.resolve("n.csv"),
                "\"sn\",\"cpu_milli\",\"memory_mib\",\"gpu\",\"model\"\r\n\"a\",1000,2048,2,\"T4\"\r\n\r\nb,1000,2048,0,\r\n");

        assertThat(TraceReader.nodes(file)).containsExactly(new TraceNode("a", 1000, 2048, 2, "T4"),
                new TraceNode("b", 1000, 2048, 0, ""));
    }

    @Test
    void anEmptyFileIsRefusedAsHavingNoHeader() throws IOException {
        Path file = Files.writeString(dir.resolve("empty.csv"), "");

        assertThatThrownBy(() -> TraceReader.pods(file)).hasMessageEndingWith("empty.csv:1: empty file, expected a header");
    }

    @Test
    void aNumberThatIsNotAnIntegerIsQuoted() throws IOException {
        assertThatThrownBy(() -> TraceReader.pods(pods(TraceFiles.pod("p", 1000, 1024, 1, 500, "").replace(",1,500,", ",1.5,500,"))))
                .hasMessageEndingWith("p.csv:2: 'num_gpu' is not an integer: '1.5'");
    }
}
