package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code gpupool agent --once --print --from-file}: a report from a saved output, on a machine without GPUs. */
class AgentCommandTest {
    @TempDir
    Path dir;

    private Path capture(String resource) throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/inventory-samples/" + resource)) {
            Path file = dir.resolve(Path.of(resource).getFileName());
            Files.write(file, in.readAllBytes());
            return file;
        }
    }

    @Test
    void printsTheNormalisedReportOfASavedXmlOutputWithThePlaceFromTheConfigFile() throws Exception {
        Path xml = capture("nvidia-smi-xml/telegraf__dual_a5000-v13.xml");
        Path config = dir.resolve("config.yaml");
        Files.writeString(config, "agent:\n  node: ws-17\n  cluster: lab\n  site: fra\n  rack: r3\n  labels: {team: vision}\n  interval: 15s\n");
        CliRun.Result r = CliRun.withoutEnvironment().run("agent", "--once", "--print", "--config", config.toString(),
                "--from-file", xml.toString(), "--format", "nvidia-smi-xml");
        assertThat(r.exitCode()).as(r.err()).isZero();
        JsonNode report = RestClient.JSON.readTree(r.out());
        assertThat(report.path("node").asText()).isEqualTo("ws-17");
        assertThat(report.path("cluster").asText()).isEqualTo("lab");
        assertThat(report.path("labels").path("team").asText()).isEqualTo("vision");
        assertThat(report.path("intervalSeconds").asInt()).isEqualTo(15);
        assertThat(report.path("source").asText()).isEqualTo("nvidia-smi-xml");
        assertThat(report.path("sequence").asLong()).isPositive();
        assertThat(report.path("gpus")).hasSize(2);
        assertThat(report.path("gpus").get(1).path("model").asText()).isEqualTo("A5000-PCIE-24G");
        assertThat(report.path("gpus").get(1).path("activity").path("framebufferUsedMib").asLong()).isEqualTo(17253);
    }

    @Test
    void readsADcgmScrapeAndNamesTheNodeOnTheCommandLine() throws Exception {
        Path prom = capture("dcgm-exporter-metrics/cloud-native-docs__dcgm-exporter-rst__a100-mig-scrape.prom");
        CliRun.Result r = CliRun.withoutEnvironment().run("agent", "--once", "--print", "--node", "ub20-a100-k8s",
                "--from-file", prom.toString(), "--format", "dcgm");
        assertThat(r.exitCode()).as(r.err()).isZero();
        JsonNode gpu = RestClient.JSON.readTree(r.out()).path("gpus").get(0);
        assertThat(gpu.path("activity").path("metric").asText()).isEqualTo("GR_ENGINE_ACTIVE");
        assertThat(gpu.path("migInstances").get(0).path("profile").asText()).isEqualTo("1g.5gb");
    }

    @Test
    void anUnreadableCaptureEndsWithExitCodeOneNamingTheFileAndField() throws Exception {
        Path bad = dir.resolve("bad.xml");
        Files.writeString(bad, "<nvidia_smi_log><gpu><fb_memory_usage><total>lots</total></fb_memory_usage></gpu></nvidia_smi_log>");
        CliRun.Result r = CliRun.withoutEnvironment().run("agent", "--once", "--print", "--node", "n1",
                "--from-file", bad.toString(), "--format", "nvidia-smi-xml");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).contains("bad.xml").contains("gpu[0].fb_memory_usage.total");
    }

    @Test
    void fromFileWithoutAFormatIsAUsageError() {
        CliRun.Result r = CliRun.withoutEnvironment().run("agent", "--once", "--print", "--from-file", "/tmp/x");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("--format");
    }
}
