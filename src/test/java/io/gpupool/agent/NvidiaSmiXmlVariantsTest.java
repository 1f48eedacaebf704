package io.gpupool.agent;

import io.gpupool.agent.NodeReport.Capture;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.Health;
import io.gpupool.agent.NodeReport.MigInstance;
import io.gpupool.catalog.CardCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code nvidia-smi -q -x} in the shapes drivers of DTD v10 to v13 print that the shipped captures
 * do not all show: older ECC groupings, renamed power and clock-event elements, bus ids, refusals.
 */
class NvidiaSmiXmlVariantsTest {
    private static final CardCatalog CATALOG = CardCatalog.standard();

    private static Capture parse(String gpuBody) {
        return NvidiaSmiXml.parse("<?xml version=\"1.0\"?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n"
                + "<nvidia_smi_log><driver_version>550.54.15</driver_version><cuda_version>12.4</cuda_version>"
                + "<gpu id=\"00000000:07:00.0\"><product_name>NVIDIA H100 80GB HBM3</product_name><uuid>GPU-1</uuid>"
                + gpuBody + "</gpu></nvidia_smi_log>", CATALOG);
    }

    private static Gpu gpu(String gpuBody) {
        return parse(gpuBody).gpus().get(0);
    }

    @Test
    void theBusIdComesFromTheGpuElementWhenThereIsNoPciSection() {
        assertThat(gpu("").pciBusId()).isEqualTo("00000000:07:00.0");
        assertThat(gpu("<pci><pci_bus_id>N/A</pci_bus_id></pci>").pciBusId()).isEqualTo("00000000:07:00.0");
        assertThat(gpu("<pci><pci_bus_id>00000000:08:00.0</pci_bus_id></pci>").pciBusId()).isEqualTo("00000000:08:00.0");
    }

    @Test
    void aCardWithoutMemoryMigOrUtilisationSectionsHasNoneOfThoseValues() {
        Gpu g = gpu("");
        assertThat(g.memoryMib()).isNull();
        assertThat(g.migEnabled()).isNull();
        assertThat(g.migInstances()).isEmpty();
        assertThat(g.activity()).isNull();
        assertThat(g.health()).isEqualTo(new Health(null, null, null, null, null, List.of(), null, null));
        assertThat(g.model()).isEqualTo("H100-SXM-80G");
    }

    @Test
    void preV11EccCountsAreGroupedByKindEachWithItsOwnTotal() {
        Health h = gpu("<ecc_errors><volatile>"
                + "<single_bit><device_memory>3</device_memory><total>5</total></single_bit>"
                + "<double_bit><device_memory>1</device_memory><total>2</total></double_bit>"
                + "</volatile><aggregate><single_bit><total>900</total></single_bit></aggregate></ecc_errors>").health();
        assertThat(h.eccCorrected()).isEqualTo(5L);
        assertThat(h.eccUncorrected()).isEqualTo(2L);
    }

    @Test
    void v11EccCountsAddUpOverSramAndDramAndIgnoreTheAggregate() {
        Health h = gpu("<ecc_errors><volatile>"
                + "<sram_correctable>1</sram_correctable><sram_uncorrectable>2</sram_uncorrectable>"
                + "<dram_correctable>10</dram_correctable><dram_uncorrectable>20</dram_uncorrectable>"
                + "<sram_threshold_exceeded>No</sram_threshold_exceeded>"
                + "</volatile><aggregate><dram_correctable>999</dram_correctable></aggregate></ecc_errors>").health();
        assertThat(h.eccCorrected()).isEqualTo(11L);
        assertThat(h.eccUncorrected()).isEqualTo(22L);
    }

    @Test
    void eccThatTheCardDoesNotSupportIsNoValueRatherThanZero() {
        Health h = gpu("<ecc_errors><volatile><sram_correctable>N/A</sram_correctable>"
                + "<sram_uncorrectable>N/A</sram_uncorrectable></volatile></ecc_errors>").health();
        assertThat(h.eccCorrected()).isNull();
        assertThat(h.eccUncorrected()).isNull();
    }

    @Test
    void retiredPagesAddUpOverTheirGroupsAndRemappedRowsOverBothKinds() {
        Health h = gpu("<retired_pages><multiple_single_bit_retirement><retired_count>2</retired_count></multiple_single_bit_retirement>"
                + "<double_bit_retirement><retired_count>3</retired_count></double_bit_retirement>"
                + "<pending_retirement>No</pending_retirement></retired_pages>"
                + "<remapped_rows><remapped_row_corr>4</remapped_row_corr><remapped_row_unc>1</remapped_row_unc>"
                + "<remapped_row_pending>No</remapped_row_pending></remapped_rows>").health();
        assertThat(h.retiredPages()).isEqualTo(5L);
        assertThat(h.remappedRows()).isEqualTo(5L);
    }

    @Test
    void bothThrottleReasonGenerationsAreReadAndOnlyActiveOnesKept() {
        Health v13 = gpu("<clocks_event_reasons><clocks_event_reason_gpu_idle>Not Active</clocks_event_reason_gpu_idle>"
                + "<clocks_event_reason_sw_thermal_slowdown> active </clocks_event_reason_sw_thermal_slowdown>"
                + "</clocks_event_reasons>").health();
        Health v12 = gpu("<clocks_throttle_reasons><clocks_throttle_reason_hw_slowdown>Active</clocks_throttle_reason_hw_slowdown>"
                + "<clocks_throttle_reason_gpu_idle>Not Active</clocks_throttle_reason_gpu_idle></clocks_throttle_reasons>").health();
        assertThat(v13.throttleReasons()).containsExactly("sw_thermal_slowdown");
        assertThat(v12.throttleReasons()).containsExactly("hw_slowdown");
    }

    @Test
    void powerIsTheDrawOfTheNewerReadingsAndFallsBackToTheOlderElementsAndTheAverage() {
        assertThat(gpu("<gpu_power_readings><power_draw>N/A</power_draw><instant_power_draw>120.50 W</instant_power_draw>"
                + "<average_power_draw>110.00 W</average_power_draw></gpu_power_readings>"
                + "<power_readings><power_draw>1.00 W</power_draw></power_readings>").health().powerW()).isEqualTo(120.5);
        assertThat(gpu("<gpu_power_readings><average_power_draw>110.00 W</average_power_draw></gpu_power_readings>")
                .health().powerW()).isEqualTo(110.0);
        assertThat(gpu("<gpu_power_readings><power_draw>N/A</power_draw></gpu_power_readings>"
                + "<power_readings><power_draw>4.61 W</power_draw></power_readings>").health().powerW()).isEqualTo(4.61);
    }

    @Test
    void migDevicesWithoutMemoryOrIdAreStillListedInOrder() {
        Gpu g = gpu("<mig_mode><current_mig>Enabled</current_mig></mig_mode><mig_devices>"
                + "<mig_device><gpu_instance_id>7</gpu_instance_id><fb_memory_usage><total>9984 MiB</total><used>5 MiB</used></fb_memory_usage></mig_device>"
                + "<mig_device><gpu_instance_id>N/A</gpu_instance_id></mig_device>"
                + "</mig_devices>");
        assertThat(g.migEnabled()).isTrue();
        assertThat(g.migInstances()).extracting(MigInstance::gpuInstanceId).containsExactly(7, null);
        assertThat(g.migInstances()).extracting(MigInstance::memoryMib).containsExactly(9984L, null);
        assertThat(g.migInstances().get(0).activity().framebufferUsedMib()).isEqualTo(5L);
        assertThat(g.migInstances().get(1).activity()).isNull();
    }

    @Test
    void aMigDeviceValueInTheWrongUnitIsRefusedNamingTheInstance() {
        assertThatThrownBy(() -> gpu("<mig_devices><mig_device><gpu_instance_id>1</gpu_instance_id></mig_device>"
                + "<mig_device><fb_memory_usage><total>9 GiB</total></fb_memory_usage></mig_device></mig_devices>"))
                .isInstanceOf(ReportFormatException.class)
                .hasMessage("gpu[0].mig_devices[1].fb_memory_usage.total: expected MiB, was '9 GiB'");
    }

    @Test
    void aUtilisationOverAHundredPercentIsRefused() {
        assertThatThrownBy(() -> gpu("<utilization><gpu_util>140 %</gpu_util></utilization>"))
                .isInstanceOf(ReportFormatException.class).hasMessageStartingWith("gpu[0].utilization.gpu_util: ");
    }

    @Test
    void eachCardIsNumberedByItsPlaceInTheLog() {
        Capture c = NvidiaSmiXml.parse("<nvidia_smi_log><gpu><uuid>GPU-a</uuid></gpu><gpu><uuid>GPU-b</uuid>"
                + "<temperature><gpu_temp>41 C</gpu_temp></temperature></gpu></nvidia_smi_log>", CATALOG);
        assertThat(c.gpus()).extracting(Gpu::index).containsExactly(0, 1);
        assertThat(c.gpus()).extracting(Gpu::uuid).containsExactly("GPU-a", "GPU-b");
        assertThat(c.gpus().get(1).health().temperatureC()).isEqualTo(41.0);
        assertThat(c.driverVersion()).isNull();
        assertThat(c.source()).isEqualTo("nvidia-smi-xml");
    }

    @Test
    void aDocumentWhoseRootIsNotTheNvidiaSmiLogIsRefused() {
        assertThatThrownBy(() -> NvidiaSmiXml.parse("<nvidia_smi><gpu/></nvidia_smi>", CATALOG))
                .isInstanceOf(ReportFormatException.class)
                .hasMessage("nvidia-smi XML: the root element is <nvidia_smi>, expected <nvidia_smi_log>");
    }

    @Test
    void aDoctypeThatDeclaresItsOwnElementsIsRefused() {
        assertThatThrownBy(() -> NvidiaSmiXml.parse("<!DOCTYPE nvidia_smi_log [<!ELEMENT nvidia_smi_log ANY>]><nvidia_smi_log/>", CATALOG))
                .isInstanceOf(ReportFormatException.class).hasMessageContaining("DOCTYPE declares");
    }

    @ParameterizedTest
    @ValueSource(strings = {"<nvidia_smi_log>", "not xml at all", "<nvidia_smi_log><gpu></nvidia_smi_log>"})
    void aDocumentThatIsNotWellFormedIsRefused(String xml) {
        assertThatThrownBy(() -> NvidiaSmiXml.parse(xml, CATALOG))
                .isInstanceOf(ReportFormatException.class).hasMessageStartingWith("nvidia-smi XML is not well-formed: ");
    }
}
