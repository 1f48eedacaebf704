package io.gpupool.agent;

import io.gpupool.agent.NodeReport.Capture;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.Health;
import io.gpupool.agent.NodeReport.MigInstance;
import io.gpupool.catalog.CardCatalog;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code nvidia-smi --query-gpu --format=csv} and {@code nvidia-smi -L}: columns by name, units checked, MIG devices named. */
class NvidiaSmiCsvTest {
    private static final CardCatalog CATALOG = CardCatalog.standard();

    private static Capture parse(String... lines) {
        return NvidiaSmiCsv.parse(String.join("\n", lines) + "\n", CATALOG);
    }

    @Test
    void columnsAreFoundByNameInAnyOrderAndTheFirstDriverVersionIsTheCaptures() {
        Capture c = parse("name, driver_version, uuid, memory.total [MiB], memory.used [MiB], pci.bus_id",
                "NVIDIA A100-SXM4-80GB, 550.54.15, GPU-a, 81920 MiB, 100 MiB, 00000000:07:00.0",
                "NVIDIA A100-SXM4-80GB, [N/A], GPU-b, 81920 MiB, 0 MiB, 00000000:0F:00.0");
        assertThat(c.source()).isEqualTo("nvidia-smi-csv");
        assertThat(c.driverVersion()).isEqualTo("550.54.15");
        assertThat(c.gpus()).extracting(Gpu::uuid).containsExactly("GPU-a", "GPU-b");
        assertThat(c.gpus()).extracting(Gpu::index).containsExactly(0, 1); // no index column: the row's place
        assertThat(c.gpus()).extracting(Gpu::pciBusId).containsExactly("00000000:07:00.0", "00000000:0F:00.0");
        assertThat(c.gpus()).extracting(Gpu::model).containsOnly("A100-SXM-80G");
        assertThat(c.gpus()).extracting(g -> g.activity().framebufferUsedMib()).containsExactly(100L, 0L);
    }

    @Test
    void aDriverVersionMissingOnTheFirstRowIsTakenFromALaterOne() {
        Capture c = parse("uuid, name, driver_version", "GPU-a, Tesla T4, [N/A]", "GPU-b, Tesla T4, 535.54.03");
        assertThat(c.driverVersion()).isEqualTo("535.54.03");
    }

    @Test
    void theIndexColumnNumbersTheCards() {
        Capture c = parse("index, uuid, name", "4, GPU-a, Tesla T4", "7, GPU-b, Tesla T4");
        assertThat(c.gpus()).extracting(Gpu::index).containsExactly(4, 7);
    }

    @Test
    void healthColumnsAddUpRetiredPagesAndRemappedRowsAndListActiveClockEventsInOrder() {
        Health h = parse("uuid, name, ecc.errors.corrected.volatile.total, ecc.errors.uncorrected.volatile.total, "
                        + "retired_pages.single_bit_ecc.count, retired_pages.double_bit.count, remapped_rows.correctable, "
                        + "remapped_rows.uncorrectable, clocks_event_reasons.sw_power_cap, clocks_event_reasons.hw_slowdown, "
                        + "clocks_throttle_reasons.gpu_idle, temperature.gpu, power.draw [W]",
                "GPU-a, Tesla T4, 3, 1, 2, [N/A], 4, 6, Active, Not Active, Active, 40, 70.10 W").gpus().get(0).health();
        assertThat(h).isEqualTo(new Health(null, 3L, 1L, 2L, 10L, List.of("gpu_idle", "sw_power_cap"), 40.0, 70.1));
    }

    @Test
    void powerFallsBackToTheInstantDrawOfNewerDrivers() {
        assertThat(parse("uuid, name, power.draw [W], power.draw.instant [W]", "GPU-a, Tesla T4, [N/A], 31.5 W")
                .gpus().get(0).health().powerW()).isEqualTo(31.5);
        assertThat(parse("uuid, name, power.draw.instant [W]", "GPU-a, Tesla T4, 32 W")
                .gpus().get(0).health().powerW()).isEqualTo(32.0);
    }

    @Test
    void aValueInAnotherUnitThanTheHeaderNamesIsRefusedNamingLineAndColumn() {
        assertThatThrownBy(() -> parse("uuid, name, memory.total [MiB]", "GPU-a, Tesla T4, 15 GiB"))
                .isInstanceOf(ReportFormatException.class)
                .hasMessage("nvidia-smi CSV line 2, memory.total: expected MiB, was '15 GiB'");
    }

    @Test
    void aMigModeThatIsNeitherOnNorOffIsRefusedNamingLineAndColumn() {
        assertThatThrownBy(() -> parse("uuid, name, mig.mode.current", "GPU-a, A100, Enabled", "GPU-b, A100, Pending"))
                .isInstanceOf(ReportFormatException.class)
                .hasMessage("nvidia-smi CSV line 3, mig.mode.current: expected Enabled or Disabled, was 'Pending'");
    }

    @Test
    void aHeaderWithoutUuidOrNameIsRefused() {
        assertThatThrownBy(() -> parse("index, name", "0, Tesla T4"))
                .isInstanceOf(ReportFormatException.class)
                .hasMessage("nvidia-smi CSV line 1: no column 'uuid' (the header names 2 columns)");
        assertThatThrownBy(() -> parse("uuid, memory.total [MiB]", "GPU-a, 1 MiB"))
                .isInstanceOf(ReportFormatException.class)
                .hasMessage("nvidia-smi CSV line 1: no column 'name' (the header names 2 columns)");
    }

    @Test
    void aRowWithTooManyValuesIsRefusedToo() {
        assertThatThrownBy(() -> parse("uuid, name", "GPU-a, Tesla T4, extra"))
                .isInstanceOf(ReportFormatException.class)
                .hasMessage("nvidia-smi CSV line 2: 3 values for 2 columns");
    }

    @Test
    void anEmptyOutputHasNoHeaderAndIsRefused() {
        assertThatThrownBy(() -> NvidiaSmiCsv.parse("\n  \n", CATALOG))
                .isInstanceOf(ReportFormatException.class).hasMessage("nvidia-smi CSV: no header line");
    }

    @Test
    void aHeaderAloneIsAMachineWithoutCards() {
        assertThat(parse("uuid, name").gpus()).isEmpty();
    }

    @Test
    void aBrokenQuoteIsRefusedAsUnreadable() {
        assertThatThrownBy(() -> parse("uuid, name", "GPU-a, \"Tesla T4"))
                .isInstanceOf(ReportFormatException.class).hasMessageStartingWith("nvidia-smi CSV cannot be read: ");
    }

    // --- nvidia-smi -L after the CSV

    @Test
    void theListingNamesEachMigDeviceOfItsOwnCardOnly() {
        Capture c = parse("uuid, name, mig.mode.current", "GPU-a, NVIDIA A100-SXM4-80GB, Enabled",
                "GPU-b, NVIDIA A100-SXM4-80GB, Disabled", "GPU-c, NVIDIA A100-SXM4-80GB, Enabled",
                "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-a)",
                "  MIG 3g.40gb     Device  0: (UUID: MIG-a0)",
                "  MIG 1g.10gb+me  Device  1: (UUID: MIG-a1)",
                "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-b)",
                "GPU 2: NVIDIA A100-SXM4-80GB (UUID: GPU-c)",
                "  MIG 7g.80gb     Device  0: (UUID: MIG-c0)");
        assertThat(c.gpus().get(0).migInstances()).extracting(MigInstance::profile, MigInstance::uuid, MigInstance::memoryMib)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("3g.40gb", "MIG-a0", 40960L),
                        org.assertj.core.groups.Tuple.tuple("1g.10gb+me", "MIG-a1", 10240L));
        assertThat(c.gpus().get(1).migInstances()).isEmpty();
        assertThat(c.gpus().get(2).migInstances()).extracting(MigInstance::uuid).containsExactly("MIG-c0");
    }

    @Test
    void aMigLineBeforeAnyCardIsIgnored() {
        Capture c = parse("uuid, name", "GPU-a, NVIDIA A100-SXM4-80GB",
                "  MIG 3g.40gb     Device  0: (UUID: MIG-x)",
                "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-a)");
        assertThat(c.gpus().get(0).migInstances()).isEmpty();
    }

    @Test
    void listedMigDevicesNameTheInstancesAnXmlCaptureHasInTheSameOrder() {
        MigInstance first = new MigInstance(1, null, 9984L, null, null);
        MigInstance second = new MigInstance(2, null, null, null, null);
        Gpu gpu = new Gpu(0, "GPU-a", null, "A100", "A100-SXM-80G", 81920L, true, List.of(first, second), List.of(), null, null);
        Capture named = NvidiaSmiList.withListing(new Capture("nvidia-smi-xml", "550", null, List.of(gpu)),
                "GPU 0: A100 (UUID: GPU-a)\n  MIG 1g.10gb Device 0: (UUID: MIG-1)\n  MIG 1g.10gb Device 1: (UUID: MIG-2)\n"
                        + "  MIG 2g.20gb Device 2: (UUID: MIG-3)\n");
        assertThat(named.gpus().get(0).migInstances()).containsExactly(
                new MigInstance(1, "1g.10gb", 9984L, "MIG-1", null), // its own memory figure is kept
                new MigInstance(2, "1g.10gb", 10240L, "MIG-2", null), // none of its own: the profile's
                new MigInstance(null, "2g.20gb", 20480L, "MIG-3", null)); // listed only
        assertThat(named.source()).isEqualTo("nvidia-smi-xml");
        assertThat(named.driverVersion()).isEqualTo("550");
    }

    @Test
    void instancesTheListingDoesNotNameAreKept() {
        MigInstance first = new MigInstance(1, null, 9984L, null, null);
        MigInstance second = new MigInstance(2, null, 9984L, null, null);
        Gpu gpu = new Gpu(0, "GPU-a", null, "A100", "A100-SXM-80G", 81920L, true, List.of(first, second), List.of(), null, null);
        Capture named = NvidiaSmiList.withListing(new Capture("x", null, null, List.of(gpu)),
                "GPU 0: A100 (UUID: GPU-a)\n  MIG 1g.10gb Device 0: (UUID: MIG-1)\n");
        assertThat(named.gpus().get(0).migInstances()).containsExactly(new MigInstance(1, "1g.10gb", 9984L, "MIG-1", null), second);
    }

    @Test
    void noListingOrOneWithoutCardsLeavesTheCaptureAsItWas() {
        Capture c = new Capture("x", null, null, List.of(new Gpu(0, "GPU-a", null, null, null, null, null, null, null, null, null)));
        assertThat(NvidiaSmiList.withListing(c, null)).isSameAs(c);
        assertThat(NvidiaSmiList.withListing(c, "No devices found.")).isSameAs(c);
    }
}
