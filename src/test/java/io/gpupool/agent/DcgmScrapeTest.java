package io.gpupool.agent;

import io.gpupool.agent.NodeReport.Activity;
import io.gpupool.agent.NodeReport.Capture;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.Health;
import io.gpupool.agent.NodeReport.MigInstance;
import io.gpupool.catalog.CardCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A dcgm-exporter scrape read into the agent's capture: cards, memory, health and activity, and the overlay on nvidia-smi. */
class DcgmScrapeTest {
    private static final CardCatalog CATALOG = CardCatalog.standard();

    private static Capture parse(String... lines) {
        return DcgmScrape.parse(String.join("\n", lines) + "\n", CATALOG);
    }

    @Test
    void twoCardsAreKeptInScrapeOrderWithTheirIndexModelAndDriver() {
        Capture c = parse(
                "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",UUID=\"GPU-b\",modelName=\"NVIDIA H100 80GB HBM3\",DCGM_FI_DRIVER_VERSION=\"550.54.15\"} 41",
                "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-a\",modelName=\"NVIDIA H100 80GB HBM3\",DCGM_FI_DRIVER_VERSION=\"550.54.15\"} 40",
                "go_goroutines 12");
        assertThat(c.source()).isEqualTo("dcgm");
        assertThat(c.driverVersion()).isEqualTo("550.54.15");
        assertThat(c.gpus()).extracting(Gpu::uuid).containsExactly("GPU-b", "GPU-a");
        assertThat(c.gpus()).extracting(Gpu::index).containsExactly(1, 0);
        assertThat(c.gpus()).extracting(Gpu::model).containsOnly("H100-SXM-80G");
        assertThat(c.gpus()).extracting(g -> g.health().temperatureC()).containsExactly(41.0, 40.0);
    }

    @Test
    void aCardWithoutAGpuLabelIsNumberedByItsPlaceInTheScrape() {
        Capture c = parse("DCGM_FI_DEV_GPU_TEMP{UUID=\"GPU-a\"} 40", "DCGM_FI_DEV_GPU_TEMP{UUID=\"GPU-b\"} 40");
        assertThat(c.gpus()).extracting(Gpu::index).containsExactly(0, 1);
        assertThat(c.gpus()).extracting(Gpu::model).containsOnly((String) null);
        assertThat(c.gpus()).extracting(Gpu::migEnabled).containsOnly((Boolean) null);
    }

    @Test
    void aCardKnownOnlyByItsGpuLabelHasNoUuid() {
        Gpu g = parse("DCGM_FI_DEV_GPU_TEMP{gpu=\"3\"} 40").gpus().get(0);
        assertThat(g.index()).isEqualTo(3);
        assertThat(g.uuid()).isNull();
    }

    @Test
    void memoryIsFreePlusUsedPlusReserved() {
        Gpu g = parse("DCGM_FI_DEV_FB_FREE{gpu=\"0\",UUID=\"GPU-a\"} 70000",
                "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-a\"} 10000.4",
                "DCGM_FI_DEV_FB_RESERVED{gpu=\"0\",UUID=\"GPU-a\"} 1559").gpus().get(0);
        assertThat(g.memoryMib()).isEqualTo(81559L);
        assertThat(g.activity().framebufferUsedMib()).isEqualTo(10000L);
    }

    @Test
    void memoryIsUnknownWhenFreeOrUsedIsMissing() {
        assertThat(parse("DCGM_FI_DEV_FB_USED{gpu=\"0\"} 10").gpus().get(0).memoryMib()).isNull();
        assertThat(parse("DCGM_FI_DEV_FB_FREE{gpu=\"0\"} 10").gpus().get(0).memoryMib()).isNull();
    }

    @Test
    void healthCountersAreReadAndRetiredAndRemappedOnesAddUp() {
        Health h = parse("DCGM_FI_DEV_XID_ERRORS{gpu=\"0\"} 79",
                "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL{gpu=\"0\"} 3",
                "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{gpu=\"0\"} 1",
                "DCGM_FI_DEV_RETIRED_SBE{gpu=\"0\"} 2",
                "DCGM_FI_DEV_RETIRED_DBE{gpu=\"0\"} 5",
                "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS{gpu=\"0\"} 4",
                "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS{gpu=\"0\"} 1",
                "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 300.5").gpus().get(0).health();
        assertThat(h.xidErrors()).isEqualTo(79L);
        assertThat(h.eccCorrected()).isEqualTo(3L);
        assertThat(h.eccUncorrected()).isEqualTo(1L);
        assertThat(h.retiredPages()).isEqualTo(7L);
        assertThat(h.remappedRows()).isEqualTo(5L);
        assertThat(h.powerW()).isEqualTo(300.5);
    }

    @Test
    void aCounterThatIsNotANumberIsNoValueRatherThanZero() {
        Health h = parse("DCGM_FI_DEV_XID_ERRORS{gpu=\"0\"} NaN").gpus().get(0).health();
        assertThat(h.xidErrors()).isNull();
    }

    @ParameterizedTest(name = "GR_ENGINE_ACTIVE {0} is {1}")
    @CsvSource({"0.5, 0.5", "1.0000002, 1.0", "-0.0001, 0.0", "0, 0.0"})
    void profilingRatiosAreBoundedToZeroToOne(String raw, double expected) {
        Activity a = parse("DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\"} " + raw).gpus().get(0).activity();
        assertThat(a.metric()).isEqualTo(Activity.GR_ENGINE_ACTIVE);
        assertThat(a.value()).isEqualTo(expected);
    }

    @Test
    void aNanRatioIsNoActivity() {
        assertThat(parse("DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\"} NaN").gpus().get(0).activity()).isNull();
    }

    @Test
    void gpuUtilisationInPercentBecomesAFractionAndSmActivityIsKept() {
        Activity a = parse("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 37", "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\"} 0.25").gpus().get(0).activity();
        assertThat(a.gpuUtil()).isEqualTo(0.37);
        assertThat(a.smActive()).isEqualTo(0.25);
    }

    @Test
    void migInstancesAreOrderedByInstanceIdWithProfileAndMemory() {
        Gpu g = parse("DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-a\",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"9\"} 0.5",
                "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-a\",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"2\"} 0.25",
                "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-a\",GPU_I_ID=\"2\"} 100").gpus().get(0);
        assertThat(g.migEnabled()).isTrue();
        assertThat(g.migInstances()).extracting(MigInstance::gpuInstanceId).containsExactly(2, 9);
        assertThat(g.migInstances()).extracting(MigInstance::profile).containsExactly("1g.10gb", "3g.40gb");
        assertThat(g.migInstances()).extracting(MigInstance::memoryMib).containsExactly(10240L, 40960L);
        assertThat(g.migInstances()).extracting(m -> m.activity().value()).containsExactly(0.25, 0.5);
        assertThat(g.migInstances().get(0).activity().framebufferUsedMib()).isEqualTo(100L);
        assertThat(g.activity()).isNull(); // the card as a whole reported nothing
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "DCGM_FI_DEV_GPU_TEMP{Hostname=\"n1\"} 40           | dcgm-exporter scrape line 2: DCGM_FI_DEV_GPU_TEMP has neither a UUID nor a gpu label",
            "DCGM_FI_DEV_GPU_TEMP{gpu=\"nvidia0\"} 40           | dcgm-exporter scrape line 2: label gpu='nvidia0' is not a GPU index",
            "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",GPU_I_ID=\"x\"} 40  | dcgm-exporter scrape line 2: label GPU_I_ID='x' is not a number",
    })
    void aSeriesThatNamesNoCardIsRefusedNamingItsLine(String line, String message) {
        assertThatThrownBy(() -> parse("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 40", line))
                .isInstanceOf(ReportFormatException.class).hasMessage(message);
    }

    @Test
    void aMetricOtherThanDcgmsNeedsNoCardLabel() {
        assertThat(parse("node_load1{instance=\"x\"} 1").gpus()).isEmpty();
    }

    // --- overlay: nvidia-smi names the cards, DCGM measures them

    private static Gpu smiGpu(String uuid, Activity activity, List<MigInstance> instances, Health health) {
        return new Gpu(0, uuid, "00000000:01:00.0", "NVIDIA A100-SXM4-80GB", "A100-SXM-80G", 81920L, !instances.isEmpty(),
                instances, List.of(), health, activity);
    }

    private static final Health SMI_HEALTH = new Health(null, 1L, 2L, 3L, 4L, List.of("gpu_idle"), 30.0, 60.0);

    @Test
    void aCardDcgmDoesNotMeasureKeepsWhatNvidiaSmiSaid() {
        Gpu smi = smiGpu("GPU-a", Activity.of(null, null, 0.4, 100L), List.of(), SMI_HEALTH);
        Capture merged = DcgmScrape.overlay(new Capture("nvidia-smi-csv", "550", "12.4", List.of(smi)),
                parse("DCGM_FI_PROF_GR_ENGINE_ACTIVE{UUID=\"GPU-other\"} 0.9"));
        assertThat(merged.gpus()).containsExactly(smi);
        assertThat(merged.source()).isEqualTo("nvidia-smi-csv+dcgm");
        assertThat(merged.driverVersion()).isEqualTo("550");
        assertThat(merged.cudaVersion()).isEqualTo("12.4");
    }

    @Test
    void dcgmsXidCountJoinsNvidiaSmisHealthAndItsMeasuresFillOnlyWhatItHas() {
        Gpu smi = smiGpu("GPU-a", Activity.of(null, null, 0.4, 100L), List.of(), SMI_HEALTH);
        Gpu merged = DcgmScrape.overlay(new Capture("nvidia-smi-xml", null, null, List.of(smi)),
                parse("DCGM_FI_DEV_XID_ERRORS{UUID=\"GPU-a\"} 48", "DCGM_FI_PROF_SM_ACTIVE{UUID=\"GPU-a\"} 0.3")).gpus().get(0);
        assertThat(merged.health()).isEqualTo(new Health(48L, 1L, 2L, 3L, 4L, List.of("gpu_idle"), 30.0, 60.0));
        assertThat(merged.activity().smActive()).isEqualTo(0.3);
        assertThat(merged.activity().gpuUtil()).isEqualTo(0.4); // DCGM had no GPU_UTIL: nvidia-smi's stays
        assertThat(merged.activity().framebufferUsedMib()).isEqualTo(100L);
        assertThat(merged.model()).isEqualTo("A100-SXM-80G");
    }

    @Test
    void withoutAnXidCountNvidiaSmisHealthStaysAsItWas() {
        Gpu smi = smiGpu("GPU-a", Activity.of(null, null, 0.4, 100L), List.of(), SMI_HEALTH);
        Gpu merged = DcgmScrape.overlay(new Capture("x", null, null, List.of(smi)),
                parse("DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-a\"} 90", "DCGM_FI_DEV_FB_USED{UUID=\"GPU-a\"} 500")).gpus().get(0);
        assertThat(merged.health()).isEqualTo(SMI_HEALTH);
        assertThat(merged.activity().gpuUtil()).isEqualTo(0.9);
        assertThat(merged.activity().framebufferUsedMib()).isEqualTo(500L);
    }

    @Test
    void migInstancesAreMatchedByInstanceIdAndAnUnmeasuredOneKeepsItsOwnActivity() {
        MigInstance three = new MigInstance(3, "3g.40gb", 40960L, "MIG-3", Activity.of(null, null, null, 10L));
        MigInstance four = new MigInstance(4, "3g.40gb", 40960L, "MIG-4", Activity.of(null, null, null, 20L));
        Gpu smi = smiGpu("GPU-a", Activity.of(null, null, null, 30L), List.of(three, four), SMI_HEALTH);
        Gpu merged = DcgmScrape.overlay(new Capture("x", null, null, List.of(smi)),
                parse("DCGM_FI_PROF_GR_ENGINE_ACTIVE{UUID=\"GPU-a\",GPU_I_ID=\"4\",GPU_I_PROFILE=\"3g.40gb\"} 0.6",
                        "DCGM_FI_PROF_GR_ENGINE_ACTIVE{UUID=\"GPU-a\",GPU_I_ID=\"5\",GPU_I_PROFILE=\"3g.40gb\"} 0.9")).gpus().get(0);
        assertThat(merged.migInstances()).extracting(MigInstance::uuid).containsExactly("MIG-3", "MIG-4");
        assertThat(merged.migInstances().get(0)).isEqualTo(three);
        assertThat(merged.migInstances().get(1).activity().value()).isEqualTo(0.6);
        assertThat(merged.migInstances().get(1).activity().framebufferUsedMib()).isEqualTo(20L);
        assertThat(merged.activity().framebufferUsedMib()).isEqualTo(30L);
    }
}
