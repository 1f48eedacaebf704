package io.gpupool.agent;

import io.gpupool.agent.NodeReport.Capture;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.MigInstance;
import io.gpupool.catalog.CardCatalog;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The agent's parsers on outputs captured on real machines by other projects. */
class CaptureParsersTest {
    private static final CardCatalog CATALOG = CardCatalog.standard();
    private static final String H100 = "nvidia-smi-query-csv/nvidia_gpu_exporter__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt";
    private static final String H100_MIG = "nvidia-smi-query-csv/nvidia_gpu_exporter__linux-x86_64__nvidia-h100-mig__590.48.01.txt";

    private static Capture xml(String file) {
        return NvidiaSmiXml.parse(Captures.read("nvidia-smi-xml/" + file), CATALOG);
    }

    @Test
    void anA100WithMigEnabledShowsItsFourInstancesAndNoGpuUtilisation() {
        Capture c = xml("telegraf__a100-sxm4-v12.xml");
        assertThat(c.driverVersion()).isEqualTo("535.54.03");
        assertThat(c.cudaVersion()).isEqualTo("12.2");
        assertThat(c.gpus()).hasSize(1);
        Gpu gpu = c.gpus().get(0);
        assertThat(gpu.productName()).isEqualTo("NVIDIA A100-SXM4-80GB");
        assertThat(gpu.model()).isEqualTo("A100-SXM-80G");
        assertThat(gpu.uuid()).isEqualTo("GPU-513536b6-7d19-9063-b049-1e69664bb298");
        assertThat(gpu.pciBusId()).isEqualTo("00000000:01:00.0");
        assertThat(gpu.memoryMib()).isEqualTo(81920L);
        assertThat(gpu.migEnabled()).isTrue();
        assertThat(gpu.migInstances()).extracting(MigInstance::gpuInstanceId).containsExactly(3, 4, 5, 6);
        assertThat(gpu.migInstances()).extracting(MigInstance::memoryMib).containsOnly(19968L);
        assertThat(gpu.migInstances()).extracting(m -> m.activity().framebufferUsedMib()).containsOnly(12L);
        // utilization.gpu is N/A under MIG: no activity figure, only the framebuffer in use
        assertThat(gpu.activity().value()).isNull();
        assertThat(gpu.activity().framebufferUsedMib()).isEqualTo(50L);
        assertThat(gpu.health().temperatureC()).isEqualTo(27.0);
        assertThat(gpu.health().powerW()).isEqualTo(67.03);
        assertThat(gpu.health().eccUncorrected()).isZero();
        assertThat(gpu.health().retiredPages()).isNull(); // N/A, not zero
    }

    @Test
    void aTeslaT4OfDtdV11ShowsOneIdleCardWithItsPowerReadings() {
        Capture c = xml("telegraf__tesla-t4.xml");
        assertThat(c.gpus()).hasSize(1);
        Gpu gpu = c.gpus().get(0);
        assertThat(gpu.model()).isEqualTo("T4-PCIE-16G");
        assertThat(gpu.memoryMib()).isEqualTo(15360L);
        assertThat(gpu.migEnabled()).isNull(); // N/A: the card has no MIG
        assertThat(gpu.migInstances()).isEmpty();
        assertThat(gpu.activity().metric()).isEqualTo("GPU_UTIL");
        assertThat(gpu.activity().value()).isZero();
        assertThat(gpu.activity().framebufferUsedMib()).isEqualTo(1032L);
        assertThat(gpu.health().powerW()).isEqualTo(26.78);
        assertThat(gpu.health().retiredPages()).isZero();
        assertThat(gpu.health().throttleReasons()).isEmpty();
    }

    @Test
    void aDualA5000HostOfDtdV13ShowsBothCardsWithTheirMemoryInUse() {
        Capture c = xml("telegraf__dual_a5000-v13.xml");
        assertThat(c.driverVersion()).isEqualTo("590.44.01");
        assertThat(c.gpus()).extracting(Gpu::index).containsExactly(0, 1);
        assertThat(c.gpus()).extracting(Gpu::model).containsOnly("A5000-PCIE-24G");
        assertThat(c.gpus()).extracting(Gpu::memoryMib).containsOnly(24564L);
        assertThat(c.gpus()).extracting(g -> g.activity().framebufferUsedMib()).containsExactly(22437L, 17253L);
        assertThat(c.gpus()).extracting(g -> g.activity().value()).containsOnly(0.0);
        assertThat(c.gpus()).extracting(Gpu::pciBusId).containsExactly("00000000:81:00.0", "00000000:C1:00.0");
        // v13 renamed power_draw to instant_power_draw and throttle reasons to clock-event reasons
        assertThat(c.gpus().get(0).health().powerW()).isEqualTo(6.52);
        assertThat(c.gpus().get(0).health().throttleReasons()).containsExactly("gpu_idle");
        assertThat(c.gpus().get(0).health().remappedRows()).isZero();
    }

    @Test
    void anOldDriverCardThatCallsItselfGraphicsDeviceIsLeftUnnamedByTheCatalog() {
        Capture c = xml("telegraf__gtx-1660-ti.xml");
        assertThat(c.gpus()).hasSize(1);
        assertThat(c.gpus().get(0).model()).isEqualTo("Graphics Device");
        assertThat(c.gpus().get(0).memoryMib()).isEqualTo(5912L);
    }

    @Test
    void aQuadroP2000OfDtdV12IsNamedByTheCatalog() {
        Capture c = xml("telegraf__quadro-p2000-v12.xml");
        assertThat(c.gpus()).extracting(Gpu::model).containsExactly("P2000-PCIE-5G");
        assertThat(c.gpus().get(0).memoryMib()).isEqualTo(5120L);
    }

    @Test
    void anH100QueryCaptureUnderLoadShowsFullUtilisation() {
        Capture c = NvidiaSmiCsv.parse(Captures.section(H100, "load :: query-gpu (csv"), CATALOG);
        assertThat(c.driverVersion()).isEqualTo("590.48.01");
        assertThat(c.gpus()).hasSize(1);
        Gpu gpu = c.gpus().get(0);
        assertThat(gpu.productName()).isEqualTo("NVIDIA H100 80GB HBM3");
        assertThat(gpu.model()).isEqualTo("H100-SXM-80G");
        assertThat(gpu.memoryMib()).isEqualTo(81559L);
        assertThat(gpu.migEnabled()).isFalse();
        assertThat(gpu.activity().metric()).isEqualTo("GPU_UTIL");
        assertThat(gpu.activity().value()).isEqualTo(1.0);
        assertThat(gpu.activity().framebufferUsedMib()).isEqualTo(19818L);
        assertThat(gpu.health().powerW()).isEqualTo(631.95);
        assertThat(gpu.health().temperatureC()).isEqualTo(59.0);
        assertThat(gpu.health().remappedRows()).isZero();
        assertThat(gpu.health().retiredPages()).isNull(); // [N/A]
    }

    @Test
    void anH100QueryCaptureAtIdleShowsNoUtilisation() {
        Capture c = NvidiaSmiCsv.parse(Captures.section(H100, "idle :: query-gpu (csv"), CATALOG);
        assertThat(c.gpus().get(0).activity().value()).isZero();
        assertThat(c.gpus().get(0).activity().framebufferUsedMib()).isZero();
        assertThat(c.gpus().get(0).health().throttleReasons()).containsExactly("gpu_idle");
    }

    @Test
    void anH100InMigModeTakesItsInstancesFromTheListingAfterTheCsv() {
        String csv = Captures.section(H100_MIG, "load :: query-gpu (csv");
        String listing = Captures.section(H100_MIG, "capabilities :: list (-L)");
        Capture c = NvidiaSmiCsv.parse(csv + "\n" + listing, CATALOG);
        Gpu gpu = c.gpus().get(0);
        assertThat(gpu.model()).isEqualTo("H100-SXM-80G");
        assertThat(gpu.migEnabled()).isTrue();
        // utilization.gpu is [N/A] in MIG mode: the card reports no activity of its own
        assertThat(gpu.activity().value()).isNull();
        assertThat(gpu.activity().framebufferUsedMib()).isEqualTo(11125L);
        assertThat(gpu.migInstances()).extracting(MigInstance::profile)
                .containsExactly("3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb");
        assertThat(gpu.migInstances()).extracting(MigInstance::memoryMib)
                .containsExactly(40960L, 20480L, 10240L, 10240L);
        assertThat(gpu.migInstances().get(1).uuid()).isEqualTo("MIG-00000001-0000-0000-0000-000000000001");
    }

    @Test
    void anH100InMigModeWithoutTheListingHasNoInstances() {
        Capture c = NvidiaSmiCsv.parse(Captures.section(H100_MIG, "idle :: query-gpu (csv"), CATALOG);
        assertThat(c.gpus().get(0).migEnabled()).isTrue();
        assertThat(c.gpus().get(0).migInstances()).isEmpty();
    }

    @Test
    void theDcgmExporterScrapeShowsGraphicsEngineActivityPerGpuAndPerMigInstance() {
        Capture c = DcgmScrape.parse(Captures.read("dcgm-exporter-metrics/cloud-native-docs__dcgm-exporter-rst__a100-mig-scrape.prom"), CATALOG);
        assertThat(c.gpus()).hasSize(1);
        Gpu gpu = c.gpus().get(0);
        assertThat(gpu.uuid()).isEqualTo("GPU-34319582-d595-d1c7-d1d2-179bcfa61660");
        assertThat(gpu.index()).isZero();
        assertThat(gpu.productName()).isNull(); // the documented excerpt has no modelName label
        assertThat(gpu.memoryMib()).isEqualTo(35690L + 4845L);
        assertThat(gpu.activity().metric()).isEqualTo("GR_ENGINE_ACTIVE");
        assertThat(gpu.activity().value()).isCloseTo(0.995630, within(1e-9));
        assertThat(gpu.activity().framebufferUsedMib()).isEqualTo(4845L);
        assertThat(gpu.health().xidErrors()).isZero();
        assertThat(gpu.health().temperatureC()).isEqualTo(61.0);
        assertThat(gpu.health().powerW()).isCloseTo(409.692, within(1e-9));
        assertThat(gpu.migEnabled()).isTrue();
        assertThat(gpu.migInstances()).hasSize(1);
        MigInstance mig = gpu.migInstances().get(0);
        assertThat(mig.gpuInstanceId()).isEqualTo(13);
        assertThat(mig.profile()).isEqualTo("1g.5gb");
        assertThat(mig.memoryMib()).isEqualTo(5120L);
        assertThat(mig.activity().value()).isCloseTo(0.995687, within(1e-9));
    }

    @Test
    void dcgmActivityLaidOverNvidiaSmiInventoryKeepsTheCardsNameAndTakesTheMeasuredActivity() {
        Capture inventory = xml("telegraf__a100-sxm4-v12.xml");
        String scrape = "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-513536b6-7d19-9063-b049-1e69664bb298\"} 0.02\n"
                + "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-513536b6-7d19-9063-b049-1e69664bb298\",GPU_I_PROFILE=\"1g.20gb\",GPU_I_ID=\"4\"} 0.75\n";
        Capture merged = DcgmScrape.overlay(inventory, DcgmScrape.parse(scrape, CATALOG));
        Gpu gpu = merged.gpus().get(0);
        assertThat(merged.source()).isEqualTo("nvidia-smi-xml+dcgm");
        assertThat(gpu.model()).isEqualTo("A100-SXM-80G");
        assertThat(gpu.activity().value()).isEqualTo(0.02);
        assertThat(gpu.activity().framebufferUsedMib()).isEqualTo(50L);
        assertThat(gpu.migInstances()).extracting(m -> m.activity().value()).containsExactly(null, 0.75, null, null);
    }

    @Test
    void anXmlExternalEntityIsNeverResolved() throws Exception {
        java.nio.file.Path secret = java.nio.file.Files.createTempFile("secret", ".txt");
        java.nio.file.Files.writeString(secret, "TOP-SECRET-CONTENT");
        String xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE nvidia_smi_log [<!ENTITY xxe SYSTEM \"" + secret.toUri() + "\">]>\n"
                + "<nvidia_smi_log><driver_version>&xxe;</driver_version><gpu id=\"0\"><product_name>Tesla T4</product_name>"
                + "<uuid>GPU-1</uuid></gpu></nvidia_smi_log>";
        Capture c;
        try {
            c = NvidiaSmiXml.parse(xml, CATALOG);
        } catch (ReportFormatException refused) {
            assertThat(refused.getMessage()).doesNotContain("TOP-SECRET");
            return;
        }
        assertThat(String.valueOf(c.driverVersion())).doesNotContain("TOP-SECRET");
    }

    @Test
    void anEntityBombIsRefused() {
        StringBuilder dtd = new StringBuilder("<!DOCTYPE nvidia_smi_log [<!ENTITY a0 \"lol\">");
        for (int i = 1; i < 12; i++) {
            dtd.append("<!ENTITY a").append(i).append(" \"").append(("&a" + (i - 1) + ";").repeat(10)).append("\">");
        }
        dtd.append("]>");
        String xml = dtd + "<nvidia_smi_log><driver_version>&a11;</driver_version></nvidia_smi_log>";
        assertThatThrownBy(() -> NvidiaSmiXml.parse(xml, CATALOG)).isInstanceOf(ReportFormatException.class);
    }

    @Test
    void aValueInAnUnexpectedUnitIsRefusedNamingTheField() {
        String xml = Captures.read("nvidia-smi-xml/telegraf__tesla-t4.xml").replace("<total>15360 MiB</total>", "<total>15 GiB</total>");
        assertThatThrownBy(() -> NvidiaSmiXml.parse(xml, CATALOG)).isInstanceOf(ReportFormatException.class)
                .hasMessageContaining("gpu[0].fb_memory_usage.total").hasMessageContaining("15 GiB");
    }

    @Test
    void aCsvRowWithTooFewValuesIsRefusedNamingTheLine() {
        String csv = "index, uuid, name, memory.total [MiB]\n0, GPU-1, Tesla T4, 15360 MiB\n1, GPU-2, Tesla T4\n";
        assertThatThrownBy(() -> NvidiaSmiCsv.parse(csv, CATALOG)).isInstanceOf(ReportFormatException.class)
                .hasMessageContaining("line 3");
    }

    @Test
    void aCsvWithoutUnitsIsReadAsWell() {
        String csv = "index, uuid, name, memory.total [MiB], utilization.gpu [%]\n0, GPU-1, Tesla T4, 15360, 37\n";
        Gpu gpu = NvidiaSmiCsv.parse(csv, CATALOG).gpus().get(0);
        assertThat(gpu.memoryMib()).isEqualTo(15360L);
        assertThat(gpu.activity().value()).isEqualTo(0.37);
    }

    @Test
    void aScrapeLineThatIsNotTheTextFormatIsRefusedNamingTheLine() {
        String scrape = "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-1\"} 40\nDCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-1\" 40\n";
        assertThatThrownBy(() -> DcgmScrape.parse(scrape, CATALOG)).isInstanceOf(ReportFormatException.class)
                .hasMessageContaining("line 2");
    }

    @Test
    void labelValuesWithEscapesAreReadAsWritten() {
        var samples = PrometheusText.parse("# HELP x y\nm{a=\"x\\\"y\",b=\"1\\\\2\"} 3 1700000000\n");
        assertThat(samples).hasSize(1);
        assertThat(samples.get(0).labels()).containsEntry("a", "x\"y").containsEntry("b", "1\\2");
        assertThat(samples.get(0).value()).isEqualTo(3.0);
    }
}
